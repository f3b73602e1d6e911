/**
 * The JSON text of a value of the contract's type `T`, rendered by PostgreSQL (json built in
 * the statement) and passed to the response as it is: no `JSON.parse` of the statement's JSON
 * and no serialising of it again. The statement writes it in its canonical form, the text
 * `JSON.stringify` writes for the parsed value (no spaces, keys in the schema's order, numbers
 * as JavaScript prints them), which the strict-parse tests hold it to
 * (test/read-shapes.test.ts), so the text and the value are interchangeable: a digest of either
 * is the same.
 */
export class JsonText<T> {
  /** Ties the text to its type; never set. */
  declare readonly value?: T;

  constructor(readonly text: string) {}

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
 * The text of an object whose properties may be rendered JSON: each property written as
 * `JSON.stringify` would write the value, without parsing the rendered ones. Properties that are
 * `undefined` are left out, as `JSON.stringify` leaves them out.
 */
export const jsonObjectText = (properties: Record<string, unknown>): string => {
  const members: string[] = [];
  for (const [key, value] of Object.entries(properties)) {
    if (value === undefined) continue;
    members.push(`${JSON.stringify(key)}:${value instanceof JsonText ? value.text : JSON.stringify(value)}`);
  }
  return `{${members.join(',')}}`;
};
