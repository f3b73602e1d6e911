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
  /** API keys: create, list, rename, rotate, revoke and read their history (never beyond what the caller holds). */
  apiKeysManage: 'api_keys.manage',
  /** Grants every permission. */
  all: '*',
} as const;

export type Permission = (typeof Permission)[keyof typeof Permission];

/** Who may call a route, as its contract metadata says. */
export type RouteAccess = {
  readonly permission: Permission;
  /**
   * The route works on an existing order and its answers show it: the order in a 200, its
   * version in a 412, its status in a 409, whether it exists in a 404. Such a route needs
   * `sales_orders.read` as well as its own permission, so that a write permission never reads.
   */
  readonly readsOrder?: true;
};

/** Every permission a caller needs for a route: its own, and read when the route shows the order. */
export const requiredPermissions = ({ permission, readsOrder }: RouteAccess): Permission[] =>
  readsOrder && permission !== Permission.read ? [permission, Permission.read] : [permission];
