import { MONEY_MAX } from '@sales-order/contract';
import { Decimal as BaseDecimal } from 'decimal.js';

/**
 * Exact decimal arithmetic for quantities, rates and money. 40 significant digits hold any
 * quantity x rate product (12 + 14 digits) and any sum of them without rounding; rounding
 * happens only where a rule says so, half-up.
 */
export const Decimal = BaseDecimal.clone({ precision: 40, rounding: BaseDecimal.ROUND_HALF_UP });
export type Decimal = BaseDecimal;

const CENT = new Decimal('0.01');
const MONEY_LIMIT = new Decimal(MONEY_MAX);

/** A JSON number or a stored value (Prisma's Decimal, a numeric string) as an exact decimal. */
export const toDecimal = (value: number | string | { toString(): string }): Decimal =>
  // decimal.js reads a number through its shortest round-trip text, so 0.1 stays 0.1.
  new Decimal(typeof value === 'number' ? value : value.toString());

/** Rounds half-up to cents. */
export const roundMoney = (value: Decimal): Decimal => value.toDecimalPlaces(2, Decimal.ROUND_HALF_UP);

/** quantity x rate, rounded half-up to 2 places: the amount of one line. */
export const lineAmount = (quantity: Decimal, rate: Decimal): Decimal => roundMoney(quantity.times(rate));

export const sum = (values: Decimal[]): Decimal => values.reduce((total, value) => total.plus(value), new Decimal(0));

/** True when a claimed amount is within one cent of the computed one. */
export const withinOneCent = (claimed: Decimal, computed: Decimal): boolean => claimed.minus(computed).abs().lte(CENT);

/** True when a money value fits the stored and transmitted range (15 significant digits). */
export const isMoneyInRange = (value: Decimal): boolean => value.abs().lte(MONEY_LIMIT);

/** A decimal as a JSON number; exact for the ranges the contract allows. */
export const toJsonNumber = (value: Decimal | { toString(): string }): number => Number(value.toString());
