import type { DropdownOptions } from './dropdown.js';
import type { ErrorEnvelope } from './envelope.js';
import type { LicenceValidation, ValidateLicenceBody } from './licence.js';
import type { SalesOrderHistory } from './order-history.js';
import type { CancelSalesOrderBody, ConfirmSalesOrderBody } from './order-lifecycle.js';
import type { SalesOrderPage } from './order-list.js';
import type {
  CreatedSalesOrder,
  CreateSalesOrderBody,
  DeletedSalesOrder,
  MaxNumber,
  SalesOrder,
  UpdatedSalesOrder,
  UpdateSalesOrderBody,
} from './sales-order.js';
import type { BulkCreatedSalesOrders, BulkCreateSalesOrdersBody } from './sales-order-bulk.js';
import type { SalesOrdersContract } from './sales-orders.contract.js';
import type { CalculateTotalsBody, Totals } from './totals.js';

/**
 * Examples shown in the OpenAPI document, typed by the contract so they cannot drift from it.
 */

const ok = <T>(data: T, message?: string) => ({ success: true as const, data, ...(message ? { message } : {}) });

const unprocessable: ErrorEnvelope = {
  success: false,
  error: {
    message: 'Validation failed',
    code: 422,
    details: [{ path: 'details.1.product_id', message: 'product 999 does not exist', code: 'unknown_product' }],
  },
};

const createBody: CreateSalesOrderBody = {
  customer_id: 12,
  sales_order_date: '2026-11-21',
  location_id: 1,
  remarks: 'Deliver to the Bogura warehouse',
  details: [
    { product_id: 1, packsize_id: 1, quantity: 3, rate: 33.3333 },
    { product_id: 6, quantity: 0.5, rate: 1260, remarks: 'half bag' },
  ],
  other_charges: [{ description: 'Carriage', amount: 150 }],
};

const order: SalesOrder = {
  sales_order_id: 4,
  sales_order_no: 'DHK-2026-00003',
  customer_id: 12,
  customer_name: 'Khandaker Krishi Bhandar, Kushtia',
  sales_order_date: '2026-11-21',
  location_id: 1,
  financial_year_id: 3,
  subtotal: 730,
  other_charges_total: 150,
  grand_total: 880,
  remarks: 'Deliver to the Bogura warehouse',
  details: [
    {
      sales_order_detail_id: 6,
      product_id: 1,
      product_name: 'Cypermethrin 10 EC (Ripcord)',
      packsize_id: 1,
      quantity: 3,
      rate: 33.3333,
      amount: 100,
      remarks: null,
      delivered_quantity: 0,
      returned_quantity: 0,
      pending_quantity: 3,
      short_closed_quantity: 0,
    },
    {
      sales_order_detail_id: 7,
      product_id: 6,
      product_name: 'Urea 46% N (Granular)',
      packsize_id: null,
      quantity: 0.5,
      rate: 1260,
      amount: 630,
      remarks: 'half bag',
      delivered_quantity: 0,
      returned_quantity: 0,
      pending_quantity: 0.5,
      short_closed_quantity: 0,
    },
  ],
  other_charges: [{ other_charge_id: 3, description: 'Carriage', amount: 150 }],
  version: 1,
  created_at: '2026-11-21 09:15:02',
  updated_at: '2026-11-21 09:15:02',
  created_by: 'api_key:sok_rxcu4k6d',
  updated_by: 'api_key:sok_rxcu4k6d',
  status: 'draft',
  status_changed_at: '2026-11-21 09:15:02',
  cancellation_reason: null,
  amended_from_id: null,
  field_officer_id: 3,
  field_officer_name: 'Abdul Karim',
  port_id: null,
  port_name: null,
  customer_reference: 'PO-2026-118',
  delivery_date: '2026-11-28',
  delivery_status: 'not_delivered',
};

const confirmed: SalesOrder = {
  ...order,
  version: 2,
  updated_at: '2026-11-21 10:20:44',
  status: 'confirmed',
  status_changed_at: '2026-11-21 10:20:44',
};
const cancelled: SalesOrder = {
  ...confirmed,
  version: 3,
  updated_at: '2026-11-22 08:01:10',
  status: 'cancelled',
  status_changed_at: '2026-11-22 08:01:10',
  cancellation_reason: 'Customer ordered the wrong grade',
};
const closed: SalesOrder = {
  ...confirmed,
  version: 3,
  updated_at: '2026-11-29 16:45:00',
  status: 'closed',
  status_changed_at: '2026-11-29 16:45:00',
};
const amended: SalesOrder = {
  ...order,
  sales_order_id: 9,
  sales_order_no: 'DHK-2026-00007',
  created_at: '2026-11-22 08:03:51',
  updated_at: '2026-11-22 08:03:51',
  status_changed_at: '2026-11-22 08:03:51',
  amended_from_id: 4,
};
const confirmBody: ConfirmSalesOrderBody = { acknowledge_warnings: true };
const cancelBody: CancelSalesOrderBody = { reason: 'Customer ordered the wrong grade' };
const invalidTransition: ErrorEnvelope = {
  success: false,
  error: {
    message: 'The order is closed',
    code: 409,
    details: [
      {
        path: 'status',
        message: 'a closed order cannot be cancelled',
        code: 'invalid_transition',
        current_status: 'closed',
      },
    ],
  },
};

const updateBody: UpdateSalesOrderBody = {
  remarks: 'Call before delivery',
  other_charges: [
    { description: 'Carriage', amount: 150 },
    { description: 'Discount', amount: -50 },
  ],
};

const totalsBody: CalculateTotalsBody = {
  details: [
    { quantity: 3, rate: 33.3333 },
    { quantity: 1, rate: 0.1 },
    { quantity: 1, rate: 0.2 },
  ],
  other_charges: [{ amount: -0.3 }],
};

const licenceBody: ValidateLicenceBody = {
  sales_order_details: [
    { product_id: 2, quantity: 80 },
    { product_id: 4, quantity: 5 },
  ],
};

const quotaWarning =
  'Product 2 "Carbofuran 5 GR (Furadan)": quantity 80 exceeds the 50 left on licence DAE-PL-0002 (150 licensed, 100 on orders).';
const expiredWarning = 'Product 4 "Chlorpyrifos 20 EC (Dursban)" requires a licence, but none is valid on 2026-11-21.';

const licenceResult: LicenceValidation = {
  validation_message: `${quotaWarning}\n${expiredWarning}`,
  has_warnings: true,
  warnings: [
    { product_id: 2, code: 'quantity_exceeds_licence', message: quotaWarning },
    { product_id: 4, code: 'no_valid_licence', message: expiredWarning },
  ],
};

const dropdown: DropdownOptions = {
  type: 'locations',
  html:
    '<option value="5">Bogura Depot</option>\n<option value="2">Chattogram Depot</option>\n' +
    '<option value="1" selected>Dhaka Central Depot</option>',
  selected_id: 1,
  truncated: false,
};

const maxNumber: MaxNumber = {
  max_sales_order_number: 'DHK-2026-00042',
  next_sales_order_number: 'DHK-2026-00043',
  year_id: 3,
  location_id: 1,
};

const created: CreatedSalesOrder = { sales_order_id: 4, order_number: 'DHK-2026-00003', total_amount: 880 };
const updated: UpdatedSalesOrder = { sales_order_id: 4, updated: true, version: 2 };
const deleted: DeletedSalesOrder = { sales_order_id: 4, deleted: true };
const totals: Totals = { subtotal: 100.3, other_charges_total: -0.3, grand_total: 100 };

const page: SalesOrderPage = {
  // The order of the read example, as the list shows it.
  items: [
    {
      sales_order_id: order.sales_order_id,
      sales_order_no: order.sales_order_no,
      customer_id: order.customer_id,
      customer_name: order.customer_name,
      sales_order_date: order.sales_order_date,
      location_id: order.location_id,
      financial_year_id: order.financial_year_id,
      subtotal: order.subtotal,
      other_charges_total: order.other_charges_total,
      grand_total: order.grand_total,
      version: order.version,
      created_at: order.created_at,
      updated_at: order.updated_at,
      status: order.status,
      status_changed_at: order.status_changed_at,
      cancellation_reason: order.cancellation_reason,
      amended_from_id: order.amended_from_id,
      field_officer_id: order.field_officer_id,
      port_id: order.port_id,
      customer_reference: order.customer_reference,
      remarks: order.remarks,
      delivery_date: order.delivery_date,
      delivery_status: order.delivery_status,
      line_count: order.details.length,
      deleted_at: null,
    },
  ],
  next_cursor: 'eyJzIjoiLXNhbGVzX29yZGVyX2RhdGUiLCJrIjoiMjAyNi0xMS0yMSIsImkiOjR9',
  total: 1342,
  total_capped: false,
};

const history: SalesOrderHistory = {
  sales_order_id: 4,
  entries: [
    {
      version: 1,
      action: 'create',
      at: '2026-11-21 09:14:03',
      by: 'user-17',
      changes: {
        fields: [
          { field: 'customer_id', from: null, to: 12 },
          { field: 'sales_order_date', from: null, to: '2026-11-21' },
        ],
        lines: {
          added: [{ line_no: 1, product_id: 1, packsize_id: 1, quantity: 3, rate: 200, amount: 600, remarks: null }],
          removed: [],
          changed: [],
        },
        other_charges: { added: [{ line_no: 1, description: 'Carriage', amount: 150 }], removed: [], changed: [] },
        totals_before: null,
        totals_after: { subtotal: 600, other_charges_total: 150, grand_total: 750 },
      },
    },
    {
      version: 2,
      action: 'update',
      at: '2026-11-21 10:02:41',
      by: 'user-17',
      changes: {
        fields: [{ field: 'remarks', from: null, to: 'Deliver to the Bogura warehouse' }],
        lines: {
          added: [],
          removed: [],
          changed: [{ line_no: 1, changes: [{ field: 'quantity', from: 3, to: 3.65 }] }],
        },
        other_charges: { added: [], removed: [], changed: [] },
        totals_before: { subtotal: 600, other_charges_total: 150, grand_total: 750 },
        totals_after: { subtotal: 730, other_charges_total: 150, grand_total: 880 },
      },
    },
  ],
  next_cursor: null,
};

const bulkBody: BulkCreateSalesOrdersBody = {
  orders: [
    { ...createBody, idempotency_key: 'van-7-2026-11-21-001' },
    { ...createBody, customer_id: 999, idempotency_key: 'van-7-2026-11-21-002' },
    { ...createBody, customer_id: 15, status: 'confirmed', idempotency_key: 'van-7-2026-11-21-003' },
  ],
  error_policy: 'reject_failed_rows',
};

const bulkCreated: BulkCreatedSalesOrders = {
  error_policy: 'reject_failed_rows',
  created: 2,
  failed: 1,
  results: [
    { index: 0, status: 'created', order: created },
    {
      index: 1,
      status: 'failed',
      error: {
        code: 422,
        message: 'Validation failed',
        details: [
          { path: 'orders.1.customer_id', message: 'customer 999 does not exist', code: 'unknown_customer', index: 1 },
        ],
      },
    },
    { index: 2, status: 'created', order: { sales_order_id: 5, order_number: 'DHK-2026-00004', total_amount: 880 } },
  ],
};

const bulkRefused: ErrorEnvelope = {
  success: false,
  error: {
    message: 'Validation failed: 1 of 3 orders refused, none created',
    code: 422,
    details: [
      { path: 'orders.1.customer_id', message: 'customer 999 does not exist', code: 'unknown_customer', index: 1 },
    ],
  },
};

type Examples = { [K in keyof SalesOrdersContract]: { request?: unknown; responses: Record<string, unknown> } };

export const OPERATION_EXAMPLES = {
  getMaxNumber: { responses: { 200: ok(maxNumber), 422: unprocessable } },
  validateLicence: { request: licenceBody, responses: { 200: ok(licenceResult), 422: unprocessable } },
  calculateTotals: { request: totalsBody, responses: { 200: ok(totals) } },
  getDropdownOptions: { responses: { 200: ok(dropdown) } },
  createSalesOrder: {
    request: createBody,
    responses: { 201: ok(created, 'Sales order created successfully'), 422: unprocessable },
  },
  bulkCreateSalesOrders: {
    request: bulkBody,
    responses: { 200: ok(bulkCreated), 422: bulkRefused },
  },
  listSalesOrders: { responses: { 200: ok(page) } },
  getSalesOrder: { responses: { 200: ok(order) } },
  getSalesOrderHistory: { responses: { 200: ok(history) } },
  updateSalesOrder: { request: updateBody, responses: { 200: ok(updated, 'Sales order updated successfully') } },
  deleteSalesOrder: { responses: { 200: ok(deleted, 'Sales order deleted successfully') } },
  confirmSalesOrder: {
    request: confirmBody,
    responses: { 200: ok(confirmed, 'Sales order confirmed'), 409: invalidTransition },
  },
  cancelSalesOrder: {
    request: cancelBody,
    responses: { 200: ok(cancelled, 'Sales order cancelled'), 409: invalidTransition },
  },
  closeSalesOrder: { responses: { 200: ok(closed, 'Sales order closed'), 409: invalidTransition } },
  amendSalesOrder: { responses: { 201: ok(amended, 'Sales order amended into a new draft'), 409: invalidTransition } },
} satisfies Examples;
