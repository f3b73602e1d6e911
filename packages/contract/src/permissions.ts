/** Permissions a caller may hold; each route names the one it needs in its metadata. */
export const Permission = {
  read: 'sales_orders.read',
  create: 'sales_orders.create',
  update: 'sales_orders.update',
  delete: 'sales_orders.delete',
  /** GET /events: the change feed. */
  eventsRead: 'events.read',
  /** Webhook endpoints: register, change, rotate secrets, read deliveries, replay, ping. */
  webhooksManage: 'webhooks.manage',
  /** Grants every permission. */
  all: '*',
} as const;

export type Permission = (typeof Permission)[keyof typeof Permission];
