/** Permissions a caller may hold; each route names the one it needs in its metadata. */
export const Permission = {
  read: 'sales_orders.read',
  create: 'sales_orders.create',
  update: 'sales_orders.update',
  delete: 'sales_orders.delete',
  /** POST /sales-orders/{id}/confirm. */
  confirm: 'sales_orders.confirm',
  /** POST /sales-orders/{id}/cancel. */
  cancel: 'sales_orders.cancel',
  /** POST /sales-orders/{id}/close (the host, when the order is fulfilled). */
  close: 'sales_orders.close',
  /** GET /events: the change feed. */
  eventsRead: 'events.read',
  /** Webhook endpoints: register, change, rotate secrets, read deliveries, replay, ping. */
  webhooksManage: 'webhooks.manage',
  /** Grants every permission. */
  all: '*',
} as const;

export type Permission = (typeof Permission)[keyof typeof Permission];
