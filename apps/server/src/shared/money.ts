/**
 * Exact decimal arithmetic for quantities, rates and money: the shared pricing package's, so the
 * server and the order entry page round and compare alike (packages/pricing/src/money.ts).
 */
export {
  Decimal,
  isMoneyInRange,
  lineAmount,
  roundMoney,
  sum,
  toDecimal,
  toJsonNumber,
  withinOneCent,
} from '@sales-order/pricing';
