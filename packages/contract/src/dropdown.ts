import { z } from 'zod';

import { id, idParam, queryInteger, requiredText } from './common.js';

export const DROPDOWN_TYPES = ['field-officers', 'products', 'locations', 'customers', 'ports'] as const;

export const DropdownTypeSchema = z.enum(DROPDOWN_TYPES);

export const DropdownParamsSchema = z.object({
  type: DropdownTypeSchema.describe('Which master table to list.'),
});

/** Options in one answer unless `limit` says otherwise (docs/decisions/dropdown-options.md). */
export const DROPDOWN_LIMIT_DEFAULT = 1000;
/** The most options one answer holds: a 50,000-product table must not make a multi-megabyte body. */
export const DROPDOWN_LIMIT_MAX = 5000;

export const DropdownQuerySchema = z.object({
  selected_id: idParam()
    .optional()
    .describe(
      'Marks the option with this id as selected, and includes it (in its sorted place) even when it is past ' +
        '`limit` or does not match `q`; an id that is not an active record selects nothing.',
    ),
  q: requiredText(100)
    .optional()
    .describe('Only records whose name contains this, case-insensitive: how a form reaches records past `limit`.'),
  limit: queryInteger(1, DROPDOWN_LIMIT_MAX)
    .default(DROPDOWN_LIMIT_DEFAULT)
    .describe(
      `At most this many options (besides the selected one), the first by name: 1..${DROPDOWN_LIMIT_MAX}, ` +
        `default ${DROPDOWN_LIMIT_DEFAULT}. \`truncated\` tells whether more records match.`,
    ),
});

export const DropdownOptionsSchema = z.object({
  type: DropdownTypeSchema,
  html: z
    .string()
    .describe(
      '<option value="ID">NAME</option> per active record (matching `q`, the first `limit`, plus the selected one), ' +
        'sorted by name (the database collation), ties by id, ' +
        'joined by "\\n"; the selected one is <option value="ID" selected>. Names and attribute values are ' +
        'HTML-escaped. No placeholder option; "" when there are no active records.',
    ),
  selected_id: id().nullable().describe('The selected_id asked for, or null when absent.'),
  truncated: z
    .boolean()
    .describe('true when more active records match than `limit` let through: narrow with `q` to reach them.'),
});

export type DropdownType = z.infer<typeof DropdownTypeSchema>;
export type DropdownQuery = z.input<typeof DropdownQuerySchema>;
export type DropdownFilters = z.output<typeof DropdownQuerySchema>;
export type DropdownOptions = z.infer<typeof DropdownOptionsSchema>;
