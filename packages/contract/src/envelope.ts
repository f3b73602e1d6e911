import { z } from 'zod';

/** The success envelope of every response: `{ success: true, data, message? }`. */
export const successEnvelope = <T extends z.ZodTypeAny>(data: T) =>
  z.object({
    success: z.literal(true),
    data,
    message: z.string().optional(),
  });

export const ErrorDetailSchema = z
  .object({
    path: z.string().describe('Dotted path of the offending input, e.g. "details.0.quantity"; "" for the whole request.'),
    message: z.string(),
    code: z.string().describe('Machine-readable reason, e.g. "invalid_type", "unknown_product".'),
    current_version: z.number().int().optional().describe('With code "version_mismatch" (412): the version the order is at now.'),
  })
  .describe('One problem with the request.');

export const ErrorEnvelopeSchema = z
  .object({
    success: z.literal(false),
    error: z.object({
      message: z.string(),
      code: z.number().int().describe('Same as the HTTP status code.'),
      details: z.array(ErrorDetailSchema),
    }),
  })
  .describe('Every failed request answers with this body.');

export type ErrorDetail = z.infer<typeof ErrorDetailSchema>;
export type ErrorEnvelope = z.infer<typeof ErrorEnvelopeSchema>;
