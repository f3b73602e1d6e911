import type { ErrorDetail } from '@sales-order/contract';
import type { ZodError, ZodIssue } from 'zod';

const detailCode = (issue: ZodIssue): string => {
  if (issue.code === 'invalid_type' && issue.received === 'undefined') return 'required';
  if (issue.code === 'custom') {
    const code = (issue.params as { code?: unknown } | undefined)?.code;
    return typeof code === 'string' ? code : 'custom';
  }
  return issue.code;
};

/** zod issues as `error.details`: `{ path: "details.0.quantity", message, code }`. */
export const issuesToDetails = (...errors: (ZodError | null | undefined)[]): ErrorDetail[] =>
  errors.flatMap((error) =>
    (error?.issues ?? []).map((issue) => ({
      path: issue.path.join('.'),
      message: issue.message,
      code: detailCode(issue),
    })),
  );
