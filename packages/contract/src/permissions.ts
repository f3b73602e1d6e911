/** Permissions a caller may hold; each route names the one it needs in its metadata. */
export const Permission = {
  read: 'sales_orders.read',
  create: 'sales_orders.create',
  update: 'sales_orders.update',
  delete: 'sales_orders.delete',
  /** POST /sales-orders/{id}/confirm, and POST /sales-orders with `status: confirmed`. */
  confirm: 'sales_orders.confirm',
  /** POST /sales-orders/{id}/cancel. */
  cancel: 'sales_orders.cancel',
  /** POST /sales-orders/{id}/close (the host, when the order is fulfilled). */
  close: 'sales_orders.close',
  /** Confirming despite licence warnings (`acknowledge_warnings: true`): a supervisor's decision. */
  licencesOverride: 'licences.override',
  /** GET /events: the change feed; also needed to receive events through a webhook endpoint. */
  eventsRead: 'events.read',
  /** Webhook endpoints: register, change, rotate secrets, read deliveries, replay, ping (one's own). */
  webhooksManage: 'webhooks.manage',
  /** Every caller's webhook endpoints, not only its own (with webhooks.manage). */
  webhooksAdmin: 'webhooks.admin',
  /** POST /imports and reading one's imports (each order also needs what its create needs). */
  import: 'sales_orders.import',
  /** API keys: create, list, rename, rotate, revoke and read their history (never beyond what the caller holds). */
  apiKeysManage: 'api_keys.manage',
  /** Grants every permission. */
  all: '*',
} as const;

export type Permission = (typeof Permission)[keyof typeof Permission];

/**
 * A permission a request needs because of what its body asks for: when the JSON body's top-level
 * `field` holds `value`, the caller needs `permission` as well as the route's own. Declared in
 * the contract (and shown in the OpenAPI document as `x-field-permissions`) so that every route
 * that takes such a field is covered by the same check.
 */
export type FieldPermission = {
  readonly field: string;
  readonly value: string | boolean;
  readonly permission: Permission;
};

/** Who may call a route, as its contract metadata says. */
export type RouteAccess = {
  readonly permission: Permission;
  /**
   * The route works on an existing order and its answers show it: the order in a 200, its
   * version in a 412, its status in a 409, whether it exists in a 404. Such a route needs
   * `sales_orders.read` as well as its own permission, so that a write permission never reads.
   */
  readonly readsOrder?: true;
  /**
   * The route makes events reach the caller's webhook endpoint (register, change, replay): it
   * needs `events.read` as well, since every event carries the order.
   */
  readonly receivesEvents?: true;
  /** Field values of the body that ask for more than the route's own permission allows. */
  readonly fieldPermissions?: readonly FieldPermission[];
};

/**
 * Every permission a caller needs for a route: its own, read when the route shows the order, and
 * events.read when it makes events reach the caller.
 */
export const requiredPermissions = ({ permission, readsOrder, receivesEvents }: RouteAccess): Permission[] => [
  ...new Set<Permission>([
    permission,
    ...(readsOrder ? [Permission.read] : []),
    ...(receivesEvents ? [Permission.eventsRead] : []),
  ]),
];

/** The permissions a body asks for beyond the route's (its fields' values, as `fieldPermissions` declares). */
export const permissionsForBody = ({ fieldPermissions = [] }: RouteAccess, body: unknown): Permission[] => {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return [];
  const fields = body as Record<string, unknown>;
  return [
    ...new Set(
      fieldPermissions
        .filter(({ field, value }) => Object.hasOwn(fields, field) && fields[field] === value)
        .map(({ permission }) => permission),
    ),
  ];
};

/** The field permissions of the confirm checks: `acknowledge_warnings: true` overrides licence warnings. */
export const ACKNOWLEDGE_WARNINGS_PERMISSION: FieldPermission = {
  field: 'acknowledge_warnings',
  value: true,
  permission: Permission.licencesOverride,
};
