export * from './money.js';
export * from './order-pricing.js';
export * from './typed-totals.js';
