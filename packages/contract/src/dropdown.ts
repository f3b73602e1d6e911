import { z } from 'zod';

import { id, idParam } from './common.js';

export const DROPDOWN_TYPES = ['field-officers', 'products', 'locations', 'customers', 'ports'] as const;

export const DropdownTypeSchema = z.enum(DROPDOWN_TYPES);

export const DropdownParamsSchema = z.object({
  type: DropdownTypeSchema.describe('Which master table to list.'),
});

export const DropdownQuerySchema = z.object({
  selected_id: idParam()
    .optional()
    .describe('Marks the option with this id as selected; an id that is not among the options selects nothing.'),
});

export const DropdownOptionsSchema = z.object({
  type: DropdownTypeSchema,
  html: z
    .string()
    .describe(
      '<option value="ID">NAME</option> per active record, sorted by name (the database collation), ties by id, ' +
        'joined by "\\n"; the selected one is <option value="ID" selected>. Names and attribute values are ' +
        'HTML-escaped. No placeholder option; "" when there are no active records.',
    ),
  selected_id: id().nullable().describe('The selected_id asked for, or null when absent.'),
});

export type DropdownType = z.infer<typeof DropdownTypeSchema>;
export type DropdownQuery = z.infer<typeof DropdownQuerySchema>;
export type DropdownOptions = z.infer<typeof DropdownOptionsSchema>;
