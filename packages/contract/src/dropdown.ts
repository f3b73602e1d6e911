import { z } from 'zod';
import { idParam } from './common.js';

export const DROPDOWN_TYPES = ['field-officers', 'products', 'locations', 'customers', 'ports'] as const;

export const DropdownTypeSchema = z.enum(DROPDOWN_TYPES);

export const DropdownParamsSchema = z.object({
  type: DropdownTypeSchema,
});

export const DropdownQuerySchema = z.object({
  selected_id: idParam().optional().describe('Marks the option with this id as selected.'),
});

export const DropdownOptionsSchema = z.object({
  type: DropdownTypeSchema,
  html: z
    .string()
    .describe('<option value="ID">NAME</option> per active record, sorted by name, joined by newlines; names HTML-escaped.'),
  selected_id: z.number().int().nullable(),
});

export type DropdownType = z.infer<typeof DropdownTypeSchema>;
export type DropdownQuery = z.infer<typeof DropdownQuerySchema>;
export type DropdownOptions = z.infer<typeof DropdownOptionsSchema>;
