import type { TransactionPort } from '../db/transactions.js';

/** What every order use case is given: the database port and the settings its rules read. */
export interface OrderDeps {
  transactions: TransactionPort;
  /** How far past its series' counter a supplied series number may be (ORDER_NUMBER_MAX_AHEAD). */
  orderNumberMaxAhead: bigint;
}
