/**
 * A value and the problems found while working it out (declared once, in the shared pricing
 * package, whose checks return it too).
 */
export type { Checked } from '@sales-order/pricing';
