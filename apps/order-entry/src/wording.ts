import type { DetailCode, ShapeIssueCodes } from '@sales-order/contract';

/**
 * What the page says to a clerk, in one place: a sentence for every detail code the contract
 * declares (DETAIL_CODES; test/order-entry-wording.test.ts holds the table to that list, and
 * the type below makes a missing code a compile error), the names of the fields an error path
 * can end in, and the sentences for refusals that carry no details.
 */

/** A field as the clerk knows it: its label, and what to do when it is empty. */
export interface Field {
  /** As the form labels it: "Quantity". */
  name: string;
  /** "Choose a customer", "Enter a quantity". */
  missing: string;
  /** Below its least value: "Quantity must be more than 0" (a text's least is not empty: `missing`). */
  tooSmall?: string;
}

const field = (name: string, missing: string, tooSmall?: string): Field => ({
  name,
  missing,
  ...(tooSmall === undefined ? {} : { tooSmall }),
});

/** By the last part of an error path ("details.3.quantity" -> "quantity"). */
export const FIELDS: Readonly<Record<string, Field>> = {
  sales_order_no: field('Order number', 'Enter the order number'),
  status: field('Status', 'Choose a status'),
  amended_from_id: field('Amends order', 'Choose the order it amends'),
  cancellation_reason: field('Cancellation reason', 'Enter the reason for cancelling'),
  customer_id: field('Customer', 'Choose a customer'),
  location_id: field('Location', 'Choose a location'),
  sales_order_date: field('Order date', 'Enter the order date'),
  field_officer_id: field('Field officer', 'Choose a field officer'),
  port_id: field('Port', 'Choose a port'),
  customer_reference: field('Customer reference', 'Enter the customer reference'),
  delivery_date: field('Delivery date', 'Enter the delivery date'),
  remarks: field('Remarks', 'Enter the remarks'),
  details: field('Lines', 'Add at least one line'),
  product_id: field('Product', 'Choose a product'),
  packsize_id: field('Pack size', 'Choose a pack size'),
  quantity: field('Quantity', 'Enter a quantity', 'Quantity must be more than 0'),
  rate: field('Rate', 'Enter a rate', 'Rate cannot be below 0'),
  amount: field('Amount', 'Enter an amount'),
  other_charges: field('Other charges', 'Enter the other charges'),
  description: field('Charge description', 'Enter a description'),
  // An order's cancel, a delivery's cancel and a return all send their reason as `reason`.
  reason: field('Reason', 'Enter the reason'),
  // A delivery and a return (deliveries-panel.ts): `lines.{n}.quantity` is worded by `quantity`.
  reference: field('Challan or gate pass no.', 'Enter the challan or gate pass number'),
  return_date: field('Date returned', 'Enter the date the goods came back'),
  lines: field('Lines', 'Enter a quantity on at least one line'),
  sales_order_detail_id: field('Line', 'Choose a line of the order'),
  delivery_line_id: field('Line', 'Choose a line of the delivery'),
  change_reason: field('Reason for the change', 'Enter the reason for the change'),
  acknowledge_warnings: field(
    'Acknowledge licence warnings',
    "Tick 'Acknowledge licence warnings' to confirm despite them",
  ),
};

const ANY_FIELD = field('This field', 'Fill in this field');

/** The field an envelope path names ("details.3.quantity", "customer_id", ""). */
export const fieldOf = (path: string): Field => {
  const parts = path.split('.').filter((part) => !/^\d+$/.test(part));
  return FIELDS[parts.at(-1) ?? ''] ?? ANY_FIELD;
};

type Wording = string | ((field: Field) => string);

const TRY_AGAIN = 'Try again in a moment.';
const RELOAD = 'Reload the page and try again; if it happens again, tell your system administrator.';
const ASK_ADMIN = 'Tell your system administrator.';

/** The page's sentence for every detail code. */
export const WORDING = {
  // The shape of a value (zod's issue codes and the contract's own checks).
  required: (f) => f.missing,
  invalid_type: (f) => f.missing,
  too_small: (f) => f.tooSmall ?? f.missing,
  too_big: (f) => `${f.name} is too large or too long`,
  invalid_string: (f) => `${f.name} is not in the right form`,
  invalid_enum_value: (f) => `${f.missing} from the list`,
  invalid_literal: (f) => `${f.name} is not a value the service accepts`,
  invalid_union: (f) => `${f.name} is not in the right form`,
  invalid_union_discriminator: (f) => `${f.name} is not in the right form`,
  invalid_intersection_types: (f) => `${f.name} is not in the right form`,
  invalid_arguments: (f) => `${f.name} is not in the right form`,
  invalid_return_type: (f) => `${f.name} is not in the right form`,
  invalid_date: (f) => `${f.name} is not a date: enter it as day, month and year`,
  not_multiple_of: (f) => `${f.name} has too many decimal places`,
  not_finite: (f) => `${f.name} must be a number`,
  unrecognized_keys: `The page sent a field the service does not know. ${RELOAD}`,
  custom: (f) => `${f.name} is not accepted`,
  too_many_decimals: (f) => `${f.name} has too many decimal places`,
  invalid_text: (f) => `${f.name} contains characters that cannot be stored`,
  invalid_integer: (f) => `${f.name} must be a whole number`,
  invalid_number: (f) => `${f.name} must be a number, like 12 or 12.5`,
  invalid_order_number: 'That is not an order number',
  empty_update: 'Nothing was changed',
  unknown_query_parameter: `The page asked in a way the service does not know. ${RELOAD}`,

  // The order's own rules.
  unknown_customer: 'This customer is not active any more: choose another',
  unknown_location: 'This location is not active any more: choose another',
  location_not_permitted: `You do not work for this location: choose one of yours. ${ASK_ADMIN}`,
  unknown_financial_year: 'No open financial year covers the order date',
  unknown_product: 'This product is not active any more: choose another',
  unknown_packsize: 'This pack size is not active any more',
  packsize_not_of_product: 'The pack size belongs to another product',
  date_outside_financial_years: 'The order date is outside every open financial year',
  amount_mismatch: 'The amount does not match quantity × rate',
  grand_total_mismatch: 'The grand total does not match the lines and charges',
  negative_grand_total: 'The grand total cannot be below 0: reduce the discounts',
  amount_out_of_range: (f) => `${f.name} is too large`,
  duplicate_order_number: 'Another order already has this number',
  order_number_out_of_series: "The order number does not belong to this location's series",
  order_number_too_far_ahead: 'The order number is too far ahead of the last one',
  order_number_change: 'The order number cannot be changed',
  location_change: 'The location of a saved order cannot be changed',
  financial_year_change: 'The order date cannot move the order into another financial year',
  unknown_field_officer: 'This field officer is not active any more: choose another',
  unknown_port: 'This port is not active any more: choose another',
  delivery_before_order_date: 'The delivery date cannot be before the order date',

  // Status changes.
  invalid_transition: 'The order is not in a state that allows this any more: it has been reloaded',
  order_not_editable: 'This order cannot be changed in its current state',
  order_not_deletable: 'This order cannot be deleted in its current state',

  // Licence warnings (amber beside their line; they refuse a confirm until acknowledged).
  no_valid_licence: 'Needs a licence, and none is valid on the order date',
  licence_expiring: 'Its licence expires soon after the order date',
  quantity_exceeds_licence: 'The quantity is more than its licence has left',

  // Saving safely.
  invalid_idempotency_key: `The page sent a bad save key. ${RELOAD}`,
  invalid_entity_tag: `The page sent a bad version. ${RELOAD}`,
  idempotency_key_reused: 'This draft was already saved with other contents: start a new order',
  idempotency_request_in_progress: 'This order is still being saved. Wait a moment, then check the list.',
  version_mismatch: 'Someone else changed this order after you opened it',
  if_match_required: `The page did not say which version it changed. ${RELOAD}`,

  // Webhooks (not on this page; worded for completeness).
  webhook_url_not_https: 'The address must start with https://',
  webhook_address_not_allowed: 'That address is not allowed',
  webhook_host_unresolvable: 'That address cannot be found',
  too_many_webhook_endpoints: 'There are too many receivers already',
  webhook_endpoint_disabled: 'That receiver is switched off',
  invalid_webhook_url: 'That is not a web address',
  too_many_webhook_secrets: 'That receiver has changed its secret too often today: try again tomorrow',
  // The change feed (not on this page either).
  cursor_past_retention: 'Changes this far back are no longer kept: start again from the oldest kept change',
  import_not_readable: 'That file is not a CSV or JSON Lines file of orders, or it is empty',
  duplicate_order_ref: 'An earlier import made this order already (same order ref): it was not made again',
  import_too_many_orders: 'That file holds too many orders: split it into smaller files',
  wrong_column_count: 'That row has more or fewer cells than the header',
  invalid_cell: 'That cell should hold a number',
  invalid_encoding: 'That row has characters that could not be read: save the file as UTF-8',
  invalid_line: 'That line is not an order',
  inconsistent_order: 'The rows of that order disagree, or its reference is used twice',
  import_ended: 'That import has finished already: there is nothing left to cancel',

  // Reports (the Reports screen asks only for what a report can answer; worded for completeness).
  quantity_needs_product: 'Quantities add up only by product: add Product to the grouping',
  total_not_by_product: "An order's charges belong to no product: choose Subtotal instead",
  not_by_delivery_date: 'By delivery date a report shows only what was delivered and returned',
  report_too_large: 'That report has too many rows to download: choose a shorter period or fewer groups',

  // Deliveries (the Deliveries panel, deliveries-panel.ts; and the cancel of an order).
  order_not_deliverable: 'Only a confirmed order takes deliveries',
  over_delivery: 'That is more than the line still has to deliver',
  unknown_order_line: 'That line is not a line of this order',
  unknown_delivery_line: 'That line is not a line of this delivery',
  return_exceeds_delivered: 'That is more than this delivery left of the line, less what came back already',
  delivery_has_returns: 'Goods came back against this delivery: it cannot be cancelled',
  order_has_deliveries: 'Goods were delivered against this order: it cannot be cancelled',
  date_out_of_range: 'That date is outside what is allowed (not in the future, not before what it follows)',

  // Changes to a confirmed order (the change panel of a confirmed order).
  change_already_open: 'A change to this order is already open: apply or discard it first',
  change_not_open: 'That change was applied or discarded already',
  order_not_changeable: 'Only a confirmed order can be changed this way',
  quantity_below_delivered: 'The quantity cannot go below what was delivered on that line',
  line_has_deliveries: 'Goods were delivered on that line: it cannot be removed or get another product',
  new_line_incomplete: 'A new line needs a product, a quantity and a rate',
  line_count_out_of_range: 'An order keeps at least one line and at most the most lines an order may have',
  empty_change: 'The change changes nothing',
  change_no_longer_holds: 'The order moved on since the change was opened: open it again',

  // API keys (not on this page; worded for completeness).
  permission_not_held: `A key cannot be given a permission you do not have yourself. ${ASK_ADMIN}`,
  location_not_held: `A key cannot reach a location you cannot reach yourself. ${ASK_ADMIN}`,
  api_key_not_active: 'That key is revoked or expired already',
  api_key_already_rotated: 'That key was replaced already: change its replacement instead',
  confirm_self_required: 'This would switch off the key you are using: confirm that you mean it',
  expiry_in_past: 'The expiry must be in the future',
  expiry_beyond_maker: 'A key cannot expire later than the key that makes it: choose an earlier expiry',

  // Signing in and permissions.
  missing_credentials: 'Sign in again to continue.',
  invalid_authorization: 'Sign in again to continue.',
  unsupported_scheme: 'Sign in again to continue.',
  invalid_token: 'Sign in again to continue.',
  token_expired: 'Sign in again to continue.',
  invalid_api_key: 'Sign in again to continue.',
  invalid_session: 'Sign in again to continue.',
  invalid_locations: `Your sign-in names a location that does not exist. ${ASK_ADMIN}`,
  locations_required: `Your sign-in does not say which locations you work for. ${ASK_ADMIN}`,
  missing_permission: `You are not allowed to do this. ${ASK_ADMIN}`,
  origin_not_allowed: `This page is not allowed to change orders from where it is opened. ${ASK_ADMIN}`,

  // Requests the service could not read.
  bad_request: `The service could not read the request. ${RELOAD}`,
  malformed_request: `The service could not read the request. ${RELOAD}`,
  request_timeout: `The request took too long to arrive. ${TRY_AGAIN}`,
  headers_too_large: `The request was too large. ${RELOAD}`,
  chunk_extensions_too_large: `The request was too large. ${RELOAD}`,
  invalid_path_encoding: `The service could not read the request. ${RELOAD}`,
  unsupported_media_type: `The service could not read the request. ${RELOAD}`,
  invalid_content_encoding: `The service could not read the request. ${RELOAD}`,
  invalid_utf8: 'Some text contains characters that cannot be stored',
  'entity.parse.failed': `The service could not read the request. ${RELOAD}`,
  'entity.too.large': 'The order is too large to send: split it into smaller orders',
  'encoding.unsupported': `The service could not read the request. ${RELOAD}`,
  'charset.unsupported': `The service could not read the request. ${RELOAD}`,
  'request.aborted': `The request was cut off. ${TRY_AGAIN}`,
  'request.size.invalid': `The request was cut off. ${TRY_AGAIN}`,

  // The service cannot take the request now.
  rate_limited: `Too many requests from this computer's network just now. ${TRY_AGAIN}`,
  database_unavailable: `The order service cannot reach its database. ${TRY_AGAIN}`,
  busy: `The order is busy with another change. ${TRY_AGAIN}`,
  overloaded: `The order service has more requests than it can take just now. ${TRY_AGAIN}`,
  shutting_down: `The order service is restarting. ${TRY_AGAIN}`,
} satisfies Record<DetailCode | (typeof ShapeIssueCodes)[number], Wording>;

const WORDS: Readonly<Record<string, Wording>> = WORDING;

/** The clerk's sentence for a detail (its code, at its path); the service's own message for a code it never declared. */
export const wordingOf = (detail: { code?: string | undefined; path: string; message: string }): string => {
  const wording = detail.code === undefined ? undefined : WORDS[detail.code];
  if (wording === undefined) return detail.message;
  return typeof wording === 'string' ? wording : wording(fieldOf(detail.path));
};

/** A refusal without details, by its HTTP status. */
export const STATUS_WORDING: Readonly<Record<number, string>> = {
  400: 'The order was not saved: correct the marked fields.',
  401: 'Sign in again to continue.',
  403: `You are not allowed to do this. ${ASK_ADMIN}`,
  404: 'This order no longer exists. It may have been deleted.',
  409: 'The order changed meanwhile: reload it and try again.',
  412: 'Someone else changed this order after you opened it.',
  413: 'The order is too large to send: split it into smaller orders.',
  422: 'The order was not saved: correct the marked fields.',
  429: `Too many requests from this computer's network just now. ${TRY_AGAIN}`,
  503: `The order service is busy or restarting. ${TRY_AGAIN}`,
};

export const UNEXPECTED = `Something went wrong in the order service. ${TRY_AGAIN}`;
export const UNREACHABLE = 'The order service could not be reached. Check the network, then try again.';
