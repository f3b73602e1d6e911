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
  invalidOrderNumber: 'invalid_order_number',
  emptyUpdate: 'empty_update',
} as const;

/** An integer id of a stored row, in a JSON body. */
export const id = () => z.number().int().positive().max(MAX_ID);

/**
 * Decimal digits as `String(number)` writes an integer: no sign, exponent, hex, spaces, fraction
 * or leading zeros, so `1e3`, `0x10`, `+1`, ` 1`, `1.0` and `01` never name an order.
 */
const CANONICAL_INTEGER = /^(?:0|[1-9][0-9]*)$/;

/**
 * An integer id read from a path or query string. Callers (the SDK) pass numbers, which go
 * through unchanged; the text of a URL is read only when it is a canonical decimal integer.
 */
export const idParam = () =>
  // Declared with a number input (the preprocess itself takes anything), so the SDK keeps
  // typed numbers and the OpenAPI document an integer.
  z.preprocess((value, ctx) => {
    if (typeof value !== 'string') return value;
    if (CANONICAL_INTEGER.test(value)) return Number(value);
    ctx.addIssue({
      code: z.ZodIssueCode.custom,
      message: 'must be a positive integer written in decimal digits only',
      params: { code: SchemaIssueCode.invalidInteger },
      fatal: true,
    });
    return z.NEVER;
  }, id()) as z.ZodEffects<ReturnType<typeof id>, number, number>;

/** Counts the digits after the decimal point of a finite number as JSON wrote it. */
export const decimalPlaces = (value: number): number => {
  const [mantissa = '', exponent] = String(value).toLowerCase().split('e');
  const fraction = mantissa.split('.')[1]?.length ?? 0;
  return Math.max(0, fraction - Number(exponent ?? 0));
};

interface DecimalOptions {
  scale: number;
  max: number;
  /** Smallest allowed value; with `exclusiveMin` the value must be greater. */
  min: number;
  exclusiveMin?: boolean;
}

/** A decimal carried as a JSON number, with a bounded range and a maximum number of decimals. */
export const decimal = ({ scale, max, min, exclusiveMin = false }: DecimalOptions) => {
  const base = z.number().finite().max(max);
  const bounded = exclusiveMin ? base.gt(min) : base.gte(min);
  return bounded.superRefine((value, ctx) => {
    if (decimalPlaces(value) > scale) {
      ctx.addIssue({
        code: z.ZodIssueCode.custom,
        message: `must have at most ${scale} decimal places`,
        params: { code: SchemaIssueCode.tooManyDecimals },
      });
    }
  });
};

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

const DATE_PATTERN = /^(\d{4})-(\d{2})-(\d{2})$/;

/** True when `YYYY-MM-DD` names a real calendar day (no 2026-02-30). */
export const isCalendarDate = (text: string): boolean => {
  const match = DATE_PATTERN.exec(text);
  if (!match) return false;
  const [, year, month, day] = match.map(Number) as [number, number, number, number];
  // setUTCFullYear, unlike Date.UTC, does not read years 0-99 as 1900-1999.
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  return (
    year >= 1 &&
    date.getUTCFullYear() === year &&
    date.getUTCMonth() === month - 1 &&
    date.getUTCDate() === day
  );
};

/** A calendar date `YYYY-MM-DD`; never shifted by a time zone. */
export const calendarDate = () =>
  z
    .string()
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
export const dateTime = () => z.string().describe('UTC timestamp, YYYY-MM-DD HH:mm:ss.');

// Control characters other than tab and line breaks have no place in ERP text, and NUL cannot
// be stored by PostgreSQL at all.
// eslint-disable-next-line no-control-regex
const FORBIDDEN_CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/;

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
export const text = (max: number) => withoutControlCharacters(z.string().max(max));

/** Required text: trimmed, not empty, storable as sent (see isStorableText). */
export const requiredText = (max: number) =>
  withoutControlCharacters(z.string().trim().min(1).max(max));

/** Digits at the end of an order number, the part that orders numbers numerically. */
export const ORDER_NUMBER_TAIL_MAX_DIGITS = 18;
const ORDER_NUMBER_PATTERN = /^[A-Za-z0-9](?:[A-Za-z0-9/_.-]{0,48}[A-Za-z0-9])?$/;

export const orderNumber = () =>
  z
    .string()
    .superRefine((value, ctx) => {
      const tail = /(\d+)$/.exec(value)?.[1] ?? '';
      if (!ORDER_NUMBER_PATTERN.test(value) || tail.replace(/^0+/, '').length > ORDER_NUMBER_TAIL_MAX_DIGITS) {
        ctx.addIssue({
          code: z.ZodIssueCode.custom,
          message:
            'must be 1-50 letters, digits, "-", "/", "_" or ".", starting and ending with a letter or digit, ' +
            `with at most ${ORDER_NUMBER_TAIL_MAX_DIGITS} significant trailing digits`,
          params: { code: SchemaIssueCode.invalidOrderNumber },
        });
      }
    })
    .describe('Order number, e.g. DHK-2026-00042; the trailing digits order numbers numerically.');
