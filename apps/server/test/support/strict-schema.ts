import { z } from 'zod';

/** Types that hold no other schema: kept as they are. */
const LEAVES = [
  z.ZodString,
  z.ZodNumber,
  z.ZodBigInt,
  z.ZodBoolean,
  z.ZodDate,
  z.ZodLiteral,
  z.ZodEnum,
  z.ZodNativeEnum,
  z.ZodNull,
  z.ZodUndefined,
  z.ZodUnknown,
  z.ZodAny,
] as const;

/**
 * `schema` with every object in it strict, at any depth: an unknown key anywhere fails the parse,
 * where the contract's own schemas strip it. Every other check of the schema stays (bounds,
 * patterns, refinements). A container type this does not know throws, so that a schema it cannot
 * see into is never passed as checked.
 */
export const deepStrict = <T extends z.ZodTypeAny>(schema: T): T => strict(schema) as T;

const strict = (schema: z.ZodTypeAny): z.ZodTypeAny => {
  if (LEAVES.some((leaf) => schema instanceof leaf)) return schema;
  if (schema instanceof z.ZodObject) {
    const shape = Object.fromEntries(
      Object.entries(schema.shape as z.ZodRawShape).map(([key, value]) => [key, strict(value)]),
    );
    return new z.ZodObject({ ...schema._def, shape: () => shape, unknownKeys: 'strict' });
  }
  if (schema instanceof z.ZodArray) return new z.ZodArray({ ...schema._def, type: strict(schema.element) });
  if (schema instanceof z.ZodNullable) return new z.ZodNullable({ ...schema._def, innerType: strict(schema.unwrap()) });
  if (schema instanceof z.ZodOptional) return new z.ZodOptional({ ...schema._def, innerType: strict(schema.unwrap()) });
  if (schema instanceof z.ZodDefault) {
    return new z.ZodDefault({ ...schema._def, innerType: strict(schema.removeDefault()) });
  }
  if (schema instanceof z.ZodEffects) return new z.ZodEffects({ ...schema._def, schema: strict(schema.innerType()) });
  if (schema instanceof z.ZodUnion) {
    const options = (schema.options as z.ZodTypeAny[]).map(strict) as [z.ZodTypeAny, ...z.ZodTypeAny[]];
    return new z.ZodUnion({ ...schema._def, options });
  }
  if (schema instanceof z.ZodDiscriminatedUnion) {
    const options = (schema.options as z.ZodObject<z.ZodRawShape>[]).map(
      (option) => strict(option) as z.ZodObject<z.ZodRawShape>,
    );
    return z.discriminatedUnion(schema.discriminator as string, options as never);
  }
  if (schema instanceof z.ZodRecord) {
    return new z.ZodRecord({ ...schema._def, valueType: strict(schema.valueSchema as z.ZodTypeAny) });
  }
  throw new Error(`deepStrict: ${schema.constructor.name} is not handled`);
};
