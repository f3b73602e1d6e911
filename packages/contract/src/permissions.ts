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
  /** Change requests on a confirmed order: open, apply, discard, list (POST /sales-orders/{id}/changes...). */
  change: 'sales_orders.change',
  /** Confirming despite licence warnings (`acknowledge_warnings: true`): a supervisor's decision. */
  licencesOverride: 'licences.override',
  /** GET /events: the change feed; also needed to receive events through a webhook endpoint. */
  eventsRead: 'events.read',
  /** Webhook endpoints: register, change, rotate secrets, read deliveries, replay, ping (one's own). */
  webhooksManage: 'webhooks.manage',
  /** Every caller's webhook endpoints, not only its own (with webhooks.manage). */
  webhooksAdmin: 'webhooks.admin',
  /**
   * POST /imports and reading one's imports (each order also needs what its create needs, and
   * an import goes on only while its starter still holds this and sales_orders.create).
   */
  import: 'sales_orders.import',
  /** Every caller's imports inside the caller's locations, not only its own: list, read, results, cancel (with sales_orders.import). */
  importsAdmin: 'imports.admin',
  /** API keys: create, list, rename, rotate, revoke and read their history (never beyond what the caller holds). */
  apiKeysManage: 'api_keys.manage',
  /** GET /reports/sales: totals of the orders in the caller's scope (without reading any order itself). */
  reportsRead: 'reports.read',
  /** Deliveries: record, cancel, return (with sales_orders.read). */
  deliveriesWrite: 'deliveries.write',
  /** Grants every permission. */
  all: '*',
} as const;

export type Permission = (typeof Permission)[keyof typeof Permission];

/**
 * A permission a request needs because of what its body asks for: when the JSON body's `field`
 * holds `value`, the caller needs `permission` as well as the route's own. `field` is a top-level
 * field, or a dotted path in which `*` stands for every item of a list (`orders.*.status`: the
 * `status` of any order of a bulk create). Declared in the contract (and shown in the OpenAPI
 * document as `x-field-permissions`) so that every route that takes such a field is covered by
 * the same check.
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

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** The values at a dotted path of `body`, `*` taking every item of a list (own properties only). */
const valuesAt = (body: unknown, path: readonly string[]): unknown[] => {
  if (path.length === 0) return [body];
  const [step, ...rest] = path as [string, ...string[]];
  if (step === '*') return Array.isArray(body) ? body.flatMap((item) => valuesAt(item, rest)) : [];
  return isObject(body) && Object.hasOwn(body, step) ? valuesAt(body[step], rest) : [];
};

/** The permissions a body asks for beyond the route's (its fields' values, as `fieldPermissions` declares). */
export const permissionsForBody = ({ fieldPermissions = [] }: RouteAccess, body: unknown): Permission[] => [
  ...new Set(
    fieldPermissions
      .filter(({ field, value }) => valuesAt(body, field.split('.')).some((each) => each === value))
      .map(({ permission }) => permission),
  ),
];

/** A body's field permissions for each item of the list `list`: `field` becomes `list.*.field`. */
export const itemFieldPermissions = (list: string, permissions: readonly FieldPermission[]): FieldPermission[] =>
  permissions.map((permission) => ({ ...permission, field: `${list}.*.${permission.field}` }));

/** The field permissions of the confirm checks: `acknowledge_warnings: true` overrides licence warnings. */
export const ACKNOWLEDGE_WARNINGS_PERMISSION: FieldPermission = {
  field: 'acknowledge_warnings',
  value: true,
  permission: Permission.licencesOverride,
};
