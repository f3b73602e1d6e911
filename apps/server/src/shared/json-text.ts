/**
 * The JSON text of a value of the contract's type `T`, rendered by PostgreSQL (json built in
 * the statement) and passed to the response as it is: no `JSON.parse` of the statement's JSON
 * and no serialising of it again. The statement writes it in its canonical form, the text
 * `JSON.stringify` writes for the parsed value (no spaces, keys in the schema's order, numbers
 * as JavaScript prints them), which the strict-parse tests hold it to
 * (test/read-shapes.test.ts), so the text and the value are interchangeable: a digest of either
 * is the same.
 *
 * The text is kept as the parts it was put together from (the envelope around a statement's
 * text, a page around its items), written to the socket one after the other: joining them would
 * copy a list page's 30 KB of text in the heap twice more for every answer, which the garbage
 * collector then pays for.
 */
export class JsonText<T> {
  /** Ties the text to its type; never set. */
  declare readonly value?: T;

  readonly parts: readonly string[];

  constructor(...parts: string[]) {
    this.parts = parts;
  }

  /** The whole text (a copy of the parts). */
  get text(): string {
    return this.parts.join('');
  }

  /** The value itself, for a reader that needs its fields (costs a parse). */
  parse(): T {
    return JSON.parse(this.text) as T;
  }

  /** Whatever serialises a structure holding it writes the value, never this wrapper. */
  toJSON(): T {
    return this.parse();
  }
}

/**
 * An object whose properties may be rendered JSON, as JSON text: each property written as
 * `JSON.stringify` would write the value, the rendered ones as they are (not parsed, not copied).
 * Properties that are `undefined` are left out, as `JSON.stringify` leaves them out.
 */
export const jsonObjectText = <T>(properties: { [K in keyof T]-?: unknown }): JsonText<T> => {
  const parts: string[] = [];
  let pending = '{';
  let first = true;
  for (const [key, value] of Object.entries(properties)) {
    if (value === undefined) continue;
    pending += `${first ? '' : ','}${JSON.stringify(key)}:`;
    first = false;
    if (value instanceof JsonText) {
      parts.push(pending, ...(value as JsonText<unknown>).parts);
      pending = '';
    } else pending += JSON.stringify(value);
  }
  parts.push(`${pending}}`);
  return new JsonText<T>(...parts);
};
