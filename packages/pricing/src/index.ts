export * from './money.js';
export * from './order-pricing.js';
