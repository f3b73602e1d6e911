import { z } from 'zod';

/**
 * Building blocks shared by every schema of the contract: identifiers, calendar dates,
 * exact-decimal numbers and safe text.
 */

/** Largest value of a PostgreSQL `integer` column: ids beyond it cannot exist. */
export const MAX_ID = 2_147_483_647;

/**
 * Money values stay within 15 significant digits (13 before the point, 2 after), so every
 * amount travels through JSON as an IEEE double without losing a cent.
 */
export const MONEY_MAX = 9_999_999_999_999.99;
export const QUANTITY_MAX = 999_999_999.999;
export const RATE_MAX = 9_999_999_999.9999;

export const MAX_DETAIL_LINES = 500;
export const MAX_OTHER_CHARGES = 50;

/** Detail codes the contract itself raises beyond zod's own issue codes. */
export const SchemaIssueCode = {
  tooManyDecimals: 'too_many_decimals',
  invalidDate: 'invalid_date',
  invalidText: 'invalid_text',
  invalidInteger: 'invalid_integer',
  invalidNumber: 'invalid_number',
  invalidOrderNumber: 'invalid_order_number',
  emptyUpdate: 'empty_update',
  /** A query parameter the route does not have (a misspelt filter must never widen a result). */
  unknownQueryParameter: 'unknown_query_parameter',
} as const;

/**
 * Adds OpenAPI keywords to a schema's entry in the document, for rules a zod refinement checks
 * but the generator cannot read from it. `metaOpenApi` is the property @anatine/zod-openapi
 * reads (its `extendApi` sets nothing else); set here rather than imported so that the SDK,
 * which bundles the contract, does not pull the generator in. Put it on the innermost schema:
 * `.describe()` copies a schema without it, but a refinement keeps its inner schema.
 */
export const documented = <T extends z.ZodTypeAny>(schema: T, keywords: Record<string, unknown>): T =>
  Object.assign(schema, {
    metaOpenApi: { ...(schema as { metaOpenApi?: Record<string, unknown> }).metaOpenApi, ...keywords },
  });

/** An integer id of a stored row, in a JSON body. */
export const id = () => z.number().int().positive().max(MAX_ID);

/**
 * Decimal digits as `String(number)` writes an integer: no sign, exponent, hex, spaces, fraction
 * or leading zeros, so `1e3`, `0x10`, `+1`, ` 1`, `1.0` and `01` never name an order.
 */
const CANONICAL_INTEGER = /^(?:0|[1-9][0-9]*)$/;

/** Decimal notation as JSON writes a number without exponent: `-12.5`, never `+1`, ` 1`, `1e3` or `0x10`. */
const CANONICAL_DECIMAL = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?$/;

const NUMBER_TEXT = {
  integer: {
    pattern: CANONICAL_INTEGER,
    message: 'must be a positive integer written in decimal digits only',
    code: SchemaIssueCode.invalidInteger,
  },
  decimal: {
    pattern: CANONICAL_DECIMAL,
    message: 'must be a number written in decimal digits (an optional minus sign and decimal point, no exponent)',
    code: SchemaIssueCode.invalidNumber,
  },
} as const;

/**
 * A number read from a path or query string. Callers (the SDK) pass numbers, which go through
 * unchanged; the text of a URL is read only in canonical decimal notation, so `0x10`, `1e3`,
 * `+1`, ` 10` and an empty value are refused, never read as 16, 1000, 1, 10 or 0. Declared with a
 * number input (the preprocess itself takes anything), so the SDK keeps typed numbers and the
 * OpenAPI document the inner schema's type.
 */
export const numberFromText = <T extends z.ZodTypeAny>(
  kind: keyof typeof NUMBER_TEXT,
  schema: T,
): z.ZodEffects<T, z.output<T>, number> => {
  const { pattern, message, code } = NUMBER_TEXT[kind];
  return z.preprocess((value, ctx) => {
    if (typeof value !== 'string') return value;
    if (pattern.test(value)) return Number(value);
    ctx.addIssue({ code: z.ZodIssueCode.custom, message, params: { code }, fatal: true });
    return z.NEVER;
  }, schema) as unknown as z.ZodEffects<T, z.output<T>, number>;
};

/** An integer id read from a path or query string (see numberFromText). */
export const idParam = () => numberFromText('integer', id());

/** A count from a query string (`limit`): an integer in `min..max` (see numberFromText). */
export const queryInteger = (min: number, max: number) => numberFromText('integer', z.number().int().min(min).max(max));

/** `true`/`false` in a query string (a boolean from the typed client). */
export const queryBoolean = () =>
  z
    .union([z.boolean(), z.enum(['true', 'false'])])
    .transform((value) => value === true || value === 'true')
    .optional();

/**
 * Counts the digits after the decimal point of a finite number as JSON wrote it. Read off
 * `String(value)` by position (it writes a lower-case `e`), without splitting it: this runs for
 * each quantity, rate and amount of a body, three for each of up to 500 lines.
 */
export const decimalPlaces = (value: number): number => {
  const written = String(value);
  const exponentAt = written.indexOf('e');
  const mantissaEnd = exponentAt === -1 ? written.length : exponentAt;
  const pointAt = written.indexOf('.');
  const fraction = pointAt === -1 || pointAt > mantissaEnd ? 0 : mantissaEnd - pointAt - 1;
  return Math.max(0, fraction - (exponentAt === -1 ? 0 : Number(written.slice(exponentAt + 1))));
};

interface DecimalOptions {
  scale: number;
  max: number;
  /** Smallest allowed value; with `exclusiveMin` the value must be greater. */
  min: number;
  exclusiveMin?: boolean;
}

interface ZodDecimalDef extends z.ZodNumberDef {
  /** The most decimals a value may have as written. */
  scale: number;
}

/**
 * A number with at most `scale` decimals as written: ZodNumber's own checks, then the count of
 * decimals, in one schema. As a refinement (a ZodEffects around the number) each value built a
 * refinement context, its bound functions and closures: a third of a 500-line body's parse and
 * most of its garbage (docs/decisions/large-orders.md). The issues are the refinement's, in
 * the same order: the number's own first, then `too_many_decimals`, which is checked whenever
 * the value is a number. The OpenAPI document reads it as the number it is, with `multipleOf`
 * (set again on every copy, as `.describe()` makes one).
 */
class ZodDecimal extends z.ZodNumber {
  declare _def: ZodDecimalDef;

  constructor(def: ZodDecimalDef) {
    super(def);
    documented(this, { multipleOf: Number(`1e-${def.scale}`) });
  }

  override _parse(input: z.ParseInput): z.ParseReturnType<number> {
    const result = super._parse(input) as z.SyncParseReturnType<number>;
    if (result.status === 'aborted' || decimalPlaces(result.value) <= this._def.scale) return result;
    z.addIssueToContext(this._getOrReturnCtx(input), {
      code: z.ZodIssueCode.custom,
      message: `must have at most ${this._def.scale} decimal places`,
      params: { code: SchemaIssueCode.tooManyDecimals },
    });
    return z.DIRTY(result.value);
  }
}

/** A decimal carried as a JSON number, with a bounded range and a maximum number of decimals. */
export const decimal = ({ scale, max, min, exclusiveMin = false }: DecimalOptions): z.ZodNumber => {
  const base = z.number().finite().max(max);
  // multipleOf in its exact decimal meaning, as the server checks it: the number as written
  // has at most `scale` decimals.
  const bounded = exclusiveMin ? base.gt(min) : base.gte(min);
  return new ZodDecimal({ ...bounded._def, scale });
};

/** What a field's fast check answers when it cannot vouch for a value: zod's own parse decides. */
const UNSURE: unique symbol = Symbol('unsure');

/** The kinds of ZodNumber check fastCheck reads; any other leaves the value to zod. */
const NUMBER_CHECKS = new Set(['int', 'min', 'max', 'finite']);

/**
 * A check that answers what zod's parse of `schema` would give for a value it accepts without
 * an issue, or UNSURE: numbers (and decimals) by their own checks, optional and nullable
 * wrappers, and any other schema by its own `safeParse`.
 */
const fastCheck = (schema: z.ZodTypeAny): ((value: unknown) => unknown) => {
  if (schema instanceof z.ZodOptional) {
    const inner = fastCheck(schema.unwrap() as z.ZodTypeAny);
    return (value) => (value === undefined ? undefined : inner(value));
  }
  if (schema instanceof z.ZodNullable) {
    const inner = fastCheck(schema.unwrap() as z.ZodTypeAny);
    return (value) => (value === null ? null : inner(value));
  }
  if (schema instanceof z.ZodNumber && !schema._def.coerce) {
    const checks = schema._def.checks;
    const scale = schema instanceof ZodDecimal ? schema._def.scale : undefined;
    if (checks.every((check) => NUMBER_CHECKS.has(check.kind)))
      return (value) => {
        if (typeof value !== 'number' || Number.isNaN(value)) return UNSURE;
        for (const check of checks) {
          const passes =
            check.kind === 'int'
              ? Number.isInteger(value)
              : check.kind === 'finite'
                ? Number.isFinite(value)
                : check.kind === 'min'
                  ? check.inclusive
                    ? value >= check.value
                    : value > check.value
                  : check.kind === 'max'
                    ? check.inclusive
                      ? value <= check.value
                      : value < check.value
                    : false;
          if (!passes) return UNSURE;
        }
        return scale === undefined || decimalPlaces(value) <= scale ? value : UNSURE;
      };
  }
  return (value) => {
    const parsed = schema.safeParse(value);
    return parsed.success ? (parsed.data as unknown) : UNSURE;
  };
};

/**
 * An object schema (unknown keys stripped) that takes a value every field accepts straight to
 * zod's output, the shape's keys in its order, each present when the input has it or its value is
 * defined: zod's per-field machinery (a path, a result and a status per field, the pairs, the
 * merge) built about 3 KB of garbage per detail line, a 500-line body's parse 1.6 MB
 * (docs/decisions/large-orders.md). Anything else, and any doubt, goes to ZodObject's own
 * parse, so the issues are zod's. The OpenAPI document reads it as the object it is.
 */
class ZodPlainObject<T extends z.ZodRawShape> extends z.ZodObject<T> {
  private fields?: [key: string, check: (value: unknown) => unknown][];

  override _parse(input: z.ParseInput): z.ParseReturnType<this['_output']> {
    const data = input.data as Record<string, unknown>;
    if (
      typeof data === 'object' &&
      data !== null &&
      Object.getPrototypeOf(data) === Object.prototype &&
      this._def.unknownKeys === 'strip' &&
      this._def.catchall instanceof z.ZodNever
    ) {
      this.fields ??= Object.entries(this.shape).map(([key, field]) => [key, fastCheck(field)]);
      const output: Record<string, unknown> = {};
      let sure = true;
      for (const [key, check] of this.fields) {
        const value = check(data[key]);
        if (value === UNSURE) {
          sure = false;
          break;
        }
        if (value !== undefined || key in data) output[key] = value;
      }
      if (sure) return { status: 'valid', value: output as this['_output'] };
    }
    return super._parse(input);
  }
}

/** z.object(shape), whose valid values skip zod's per-field machinery (ZodPlainObject): for the items of long lists. */
export const plainObject = <T extends z.ZodRawShape>(shape: T): z.ZodObject<T> =>
  new ZodPlainObject<T>(z.object(shape)._def);

export const quantity = () =>
  decimal({ scale: 3, min: 0, exclusiveMin: true, max: QUANTITY_MAX }).describe(
    `Quantity, greater than 0, at most 3 decimal places, up to ${QUANTITY_MAX}.`,
  );

export const rate = () =>
  decimal({ scale: 4, min: 0, max: RATE_MAX }).describe(
    `Unit rate, 0 or more, at most 4 decimal places, up to ${RATE_MAX}.`,
  );

/** A stored money amount: exactly representable in cents. */
export const money = () =>
  decimal({ scale: 2, min: -MONEY_MAX, max: MONEY_MAX }).describe(
    'Money amount with at most 2 decimal places (negative for discounts).',
  );

/** A money amount the client computed and the server only compares: any precision. */
export const claimedMoney = () => z.number().finite().gte(-MONEY_MAX).lte(MONEY_MAX);

const MONTH_DAY =
  '(?:(?:0[13578]|1[02])-(?:0[1-9]|[12][0-9]|3[01])|(?:0[469]|11)-(?:0[1-9]|[12][0-9]|30)|02-(?:0[1-9]|1[0-9]|2[0-8]))';
const YEAR = '(?:[0-9]{3}[1-9]|[0-9]{2}[1-9]0|[0-9][1-9]00|[1-9]000)';
const LEAP_YEAR = '(?:[0-9]{2}(?:0[48]|[2468][048]|[13579][26])|(?:0[48]|[2468][048]|[13579][26])00)';

/**
 * `YYYY-MM-DD` naming a real day of the Gregorian calendar, years 0001-9999 (no 2026-02-30,
 * 29 February only in leap years). A regular expression rather than a date library, so that
 * the OpenAPI document states the very rule the server applies.
 */
export const CALENDAR_DATE_PATTERN = `^(?:${YEAR}-${MONTH_DAY}|${LEAP_YEAR}-02-29)$`;
const CALENDAR_DATE = new RegExp(CALENDAR_DATE_PATTERN);

/** True when `YYYY-MM-DD` names a real calendar day (no 2026-02-30). */
export const isCalendarDate = (text: string): boolean => CALENDAR_DATE.test(text);

/** A calendar date `YYYY-MM-DD`; never shifted by a time zone. */
export const calendarDate = () =>
  documented(z.string(), { format: 'date', pattern: CALENDAR_DATE_PATTERN, minLength: 10, maxLength: 10 })
    .superRefine((value, ctx) => {
      if (!isCalendarDate(value)) {
        ctx.addIssue({
          code: z.ZodIssueCode.custom,
          message: 'must be a calendar date in YYYY-MM-DD format',
          params: { code: SchemaIssueCode.invalidDate },
        });
      }
    })
    .describe('Calendar date, YYYY-MM-DD.');

/** `YYYY-MM-DD HH:mm:ss` in UTC, as the spec's DateTime type. */
export const dateTime = () =>
  z
    .string()
    .max(19)
    .regex(/^[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}$/)
    .describe('UTC timestamp, YYYY-MM-DD HH:mm:ss.');

// Control characters other than tab and line breaks have no place in ERP text, and NUL cannot
// be stored by PostgreSQL at all.
const CONTROL_CHARACTERS = '\\u0000-\\u0008\\u000B\\u000C\\u000E-\\u001F\\u007F';
const FORBIDDEN_CONTROL = new RegExp(`[${CONTROL_CHARACTERS}]`);
/**
 * The same rule for the OpenAPI document, which also refuses lone surrogates (read with the `u`
 * flag, as ajv does, `\\uD800-\\uDFFF` matches only unpaired halves; without it, it refuses
 * astral characters too, which only makes the document stricter than the server).
 */
const FORBIDDEN_IN_DOCUMENT = `${CONTROL_CHARACTERS}\\uD800-\\uDFFF`;
export const TEXT_PATTERN = `^[^${FORBIDDEN_IN_DOCUMENT}]*$`;
/** Required text must also keep a character after trimming (`\\s` is what trim removes). */
export const REQUIRED_TEXT_PATTERN = `^[^${FORBIDDEN_IN_DOCUMENT}]*[^\\s${FORBIDDEN_IN_DOCUMENT}][^${FORBIDDEN_IN_DOCUMENT}]*$`;

// Half of a UTF-16 surrogate pair cannot be encoded in UTF-8: the driver would store U+FFFD.
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

/** True when text can be stored exactly as sent: no control characters, no lone surrogate. */
export const isStorableText = (value: string): boolean => !FORBIDDEN_CONTROL.test(value) && !LONE_SURROGATE.test(value);

const withoutControlCharacters = <T extends z.ZodType<string, z.ZodTypeDef, string>>(schema: T) =>
  schema.superRefine((value, ctx) => {
    if (!isStorableText(value)) {
      ctx.addIssue({
        code: z.ZodIssueCode.custom,
        message: 'must not contain control characters or unpaired surrogates',
        params: { code: SchemaIssueCode.invalidText },
      });
    }
  });

/** Free text up to `max` characters, storable as sent (see isStorableText). */
export const text = (max: number) =>
  withoutControlCharacters(documented(z.string().max(max), { pattern: TEXT_PATTERN }));

/** Required text: trimmed, not empty, storable as sent (see isStorableText). */
export const requiredText = (max: number) =>
  withoutControlCharacters(documented(z.string().trim().min(1).max(max), { pattern: REQUIRED_TEXT_PATTERN }));

/** Digits at the end of an order number, the part that orders numbers numerically. */
export const ORDER_NUMBER_TAIL_MAX_DIGITS = 18;
export const ORDER_NUMBER_MAX_LENGTH = 50;
const SIGNIFICANT_TAIL = `(?:0+(?:[1-9][0-9]{0,${ORDER_NUMBER_TAIL_MAX_DIGITS - 1}})?|[1-9][0-9]{0,${ORDER_NUMBER_TAIL_MAX_DIGITS - 1}})`;
/**
 * Letters, digits, "-", "/", "_" or ".", starting and ending with a letter or digit; a number
 * ending in digits has at most 18 of them after its leading zeros. One expression, so that the
 * OpenAPI document states the rule the server applies.
 */
export const ORDER_NUMBER_PATTERN = `^(?:(?:[A-Za-z0-9][A-Za-z0-9/_.-]*)?[A-Za-z]|(?:[A-Za-z0-9][A-Za-z0-9/_.-]*[A-Za-z/_.-]|[A-Za-z])?${SIGNIFICANT_TAIL})$`;
const ORDER_NUMBER = new RegExp(ORDER_NUMBER_PATTERN);

export const orderNumber = () =>
  documented(z.string(), { pattern: ORDER_NUMBER_PATTERN, minLength: 1, maxLength: ORDER_NUMBER_MAX_LENGTH })
    .superRefine((value, ctx) => {
      // The length first: the expression backtracks, and only short values deserve it.
      if (value.length > ORDER_NUMBER_MAX_LENGTH || !ORDER_NUMBER.test(value)) {
        ctx.addIssue({
          code: z.ZodIssueCode.custom,
          message:
            `must be 1-${ORDER_NUMBER_MAX_LENGTH} letters, digits, "-", "/", "_" or ".", starting and ending with a letter or digit, ` +
            `with at most ${ORDER_NUMBER_TAIL_MAX_DIGITS} significant trailing digits`,
          params: { code: SchemaIssueCode.invalidOrderNumber },
        });
      }
    })
    .describe('Order number, e.g. DHK-2026-00042 (a number of its series) or PO-20261115 (free-form).');

// base64url of UTF-8 text (opaque cursors), with the platform's btoa/atob so the contract runs in browsers too.
export const toBase64Url = (text: string): string =>
  btoa(String.fromCharCode(...new TextEncoder().encode(text)))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');

/** The text `toBase64Url` encoded; throws when the value is not base64url of UTF-8. */
export const fromBase64Url = (value: string): string => {
  const bytes = Uint8Array.from(atob(value.replace(/-/g, '+').replace(/_/g, '/')), (char) => char.charCodeAt(0));
  return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
};

const DATE_TIME_INPUT =
  /^(\d{4}-\d{2}-\d{2})[T ]((?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d(?:\.\d{1,6})?)(Z|[+-](?:[01]\d|2[0-3]):[0-5]\d)?$/;

/**
 * The spec's DateTime (`YYYY-MM-DD HH:mm:ss`, UTC) or ISO 8601 with an offset; read as an
 * instant. The day must exist (no 2026-02-30, no year 0: the calendar-date rule of bodies) and
 * the time too (no hour 24, no minute 60): JavaScript's Date would roll them over.
 */
export const dateTimeInput = () =>
  documented(z.string().max(40), { format: 'date-time' })
    .transform((value, ctx) => {
      const match = DATE_TIME_INPUT.exec(value);
      const instant =
        match && isCalendarDate(match[1]!) ? new Date(`${match[1]}T${match[2]}${match[3] ?? 'Z'}`) : undefined;
      if (!instant || Number.isNaN(instant.getTime())) {
        ctx.addIssue({
          code: z.ZodIssueCode.custom,
          message: 'must be a date-time of a real day: YYYY-MM-DD HH:mm:ss (UTC) or ISO 8601 with an offset',
          params: { code: SchemaIssueCode.invalidDate },
        });
        return z.NEVER;
      }
      return instant;
    })
    .describe('YYYY-MM-DD HH:mm:ss (UTC) or ISO 8601, e.g. 2026-11-22T04:00:00Z.');
