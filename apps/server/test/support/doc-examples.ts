import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

import { fromMarkdown } from 'mdast-util-from-markdown';

/**
 * The documentation's examples as the docs harness (test/docs/docs-examples.test.ts) runs them.
 *
 * A page's ```sh blocks run in page order, in one shell per page. Inside a block, a comment
 * line `# -> <answer>` (continued by comment lines indented past the `#`) is the answer of the
 * commands since the previous answer; a fenced ```json, ```text, ```html or bare block right
 * after the ```sh block (nothing but blank lines between) is the answer of its remaining
 * commands. Commands with no answer shown run too, and must exit 0. A block preceded by
 * `<!-- docs-test: skip <reason> -->` is not run, and is reported as skipped with its reason.
 */

export const ROOT = path.resolve(import.meta.dirname, '../../../..');

/** Every Markdown page a reader of a clone follows, in the order the harness runs them. */
export const markdownPages = (): string[] => [
  'README.md',
  ...['packages/client', 'packages/contract', 'apps/server']
    .map((dir) => `${dir}/README.md`)
    .filter((file) => existsSync(path.join(ROOT, file))),
  ...readdirSync(path.join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`),
];

export type Step = {
  /** The shell text of the commands. */
  script: string;
  /** What the page shows they print; undefined when it shows nothing. */
  answer?: string;
  /** 1-based line of the step's first command in the page. */
  line: number;
};

export type Example = {
  page: string;
  /** 1-based line of the opening fence. */
  line: number;
  lang: string;
  code: string;
  /** The reason of a `docs-test: skip` marker before the fence. */
  skip?: string;
  /** The reason of a `docs-test: compile-only` marker before the fence (SDK snippets). */
  compileOnly?: string;
  /** The fenced answer block right after it, if any. */
  answer?: string;
};

/** The parts of mdast's nodes read here. */
type MdNode = {
  type: string;
  lang?: string | null;
  value?: string;
  children?: MdNode[];
  position?: { start: { line: number }; end: { line: number } };
};

const ANSWER_LANGS = new Set(['json', 'text', 'html', '']);
const MARKER = /^<!--\s*docs-test:\s*(skip|compile-only)\s+([\s\S]*?)\s*-->$/;

/** The fenced code blocks of `lang` in a page, with their skip markers and answers. */
export const examplesOf = (page: string, langs: readonly string[]): Example[] => {
  const tree = fromMarkdown(readFileSync(path.join(ROOT, page), 'utf8')) as MdNode;
  const examples: Example[] = [];
  const walk = (parent: MdNode) => {
    const children = parent.children ?? [];
    children.forEach((node, index) => {
      walk(node);
      if (node.type !== 'code' || !langs.includes(node.lang ?? '')) return;
      const previous = children[index - 1];
      const next = children[index + 1];
      const marker =
        previous?.type === 'html' && previous.position!.end.line === node.position!.start.line - 1
          ? MARKER.exec((previous.value ?? '').trim())
          : null;
      const skip = marker?.[1] === 'skip' ? marker[2] : undefined;
      const compileOnly = marker?.[1] === 'compile-only' ? marker[2] : undefined;
      const answer =
        next?.type === 'code' && ANSWER_LANGS.has(next.lang ?? '') && !langs.includes(next.lang ?? '')
          ? next.value
          : undefined;
      examples.push({
        page,
        line: node.position!.start.line,
        lang: node.lang ?? '',
        code: node.value ?? '',
        skip,
        compileOnly,
        answer,
      });
    });
  };
  walk(tree);
  return examples;
};

const ANSWER_START = /^# -> ?(.*)$/;
const ANSWER_CONTINUED = /^#\s{2,}(.*)$/;

/** A ```sh block cut into its commands and the answers the page shows for them. */
export const stepsOf = (example: Example): Step[] => {
  const lines = example.code.split('\n');
  const steps: Step[] = [];
  let script: string[] = [];
  let first = 0;
  for (let i = 0; i < lines.length; i++) {
    const start = ANSWER_START.exec(lines[i]!);
    if (!start) {
      if (script.length === 0) first = i;
      script.push(lines[i]!);
      continue;
    }
    const answer = [start[1]!];
    while (i + 1 < lines.length && ANSWER_CONTINUED.test(lines[i + 1]!))
      answer.push(ANSWER_CONTINUED.exec(lines[++i]!)![1]!);
    steps.push({ script: script.join('\n'), answer: answer.join('\n'), line: example.line + 1 + first });
    script = [];
  }
  const rest = script.join('\n');
  const hasCommands = rest.split('\n').some((line) => line.trim() !== '' && !line.trim().startsWith('#'));
  if (hasCommands || example.answer !== undefined)
    steps.push({ script: rest, answer: example.answer, line: example.line + 1 + first });
  return steps;
};

// ---------------------------------------------------------------------------------------------
// Comparing an output with the answer shown.

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Segment = { kind: 'text'; text: string } | { kind: 'json'; value: Json };

/** The end (exclusive) of the JSON object or array starting at `start`, or -1. */
const jsonEnd = (text: string, start: number): number => {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') {
      depth--;
      if (depth === 0) return i + 1;
    }
  }
  return -1;
};

/**
 * An output cut into JSON values (which may span lines, or follow each other on one line: curl
 * adds no newline after a body) and the lines of text between them.
 */
export const segments = (output: string): Segment[] => {
  const result: Segment[] = [];
  let i = 0;
  const text = output.replace(/\r/g, '');
  while (i < text.length) {
    while (i < text.length && /\s/.test(text[i]!)) i++;
    if (i >= text.length) break;
    if (text[i] === '{' || text[i] === '[') {
      const end = jsonEnd(text, i);
      if (end !== -1) {
        try {
          result.push({ kind: 'json', value: JSON.parse(text.slice(i, end)) as Json });
          i = end;
          continue;
        } catch {
          // not JSON after all: a line of text
        }
      }
    }
    const newline = text.indexOf('\n', i);
    const lineEnd = newline === -1 ? text.length : newline;
    result.push({ kind: 'text', text: text.slice(i, lineEnd).trimEnd() });
    i = lineEnd;
  }
  return result;
};

/**
 * What varies from run to run, matched by its shape: timestamps, dates, UUIDs, API key prefixes
 * and keys, webhook secrets, the financial year in order numbers, order ids in paths and
 * messages, ETags.
 */
const VOLATILE: [RegExp, string][] = [
  [
    /\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}(?:\.\d+)?Z?/g,
    String.raw`\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}(?:\.\d+)?Z?`,
  ],
  [/\d{4}-\d{2}-\d{2}/g, String.raw`\d{4}-\d{2}-\d{2}`],
  [
    /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g,
    '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}',
  ],
  [/sok_[a-z0-9]{8}_[A-Za-z0-9_-]+/g, 'sok_[a-z0-9]{8}_[A-Za-z0-9_-]+'],
  [/sok_[a-z0-9]{8}/g, 'sok_[a-z0-9]{8}'],
  [/whsec_[A-Za-z0-9+/=]+/g, 'whsec_[A-Za-z0-9+/=]+'],
  [/\b[A-Z]{3}-\d{4}-\d{5}\b/g, ''],
  [/\/sales-orders\/\d+/g, String.raw`/sales-orders/\d+`],
  // An order's id in a message ("sales order 7 is at version 2"), and an ETag's digest.
  [/\bsales order \d+\b/g, String.raw`sales order \d+`],
  [/"\d+-[A-Za-z0-9_-]{16}"/g, String.raw`"\d+-[A-Za-z0-9_-]{16}"`],
];

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A regular expression matching `expected` with its volatile parts matched by shape. */
export const patternOf = (expected: string): RegExp => {
  let source = '';
  let rest = expected;
  while (rest.length > 0) {
    let best: { index: number; length: number; pattern: string } | undefined;
    for (const [token, pattern] of VOLATILE) {
      token.lastIndex = 0;
      const match = token.exec(rest);
      if (match && (best === undefined || match.index < best.index)) {
        // An order number keeps its series prefix and sequence; only the year varies.
        const shape = pattern === '' ? `${match[0].slice(0, 4)}\\d{4}${escapeRegExp(match[0].slice(8))}` : pattern;
        best = { index: match.index, length: match[0].length, pattern: shape };
      }
    }
    if (!best) {
      source += escapeRegExp(rest);
      break;
    }
    source += escapeRegExp(rest.slice(0, best.index)) + best.pattern;
    rest = rest.slice(best.index + best.length);
  }
  return new RegExp(`^${source}$`);
};

const ELLIPSIS = '...';
/** Keys whose values are identifiers or opaque tokens: any value of the same type matches. */
const isVolatileKey = (key: string) =>
  key === 'id' || key.endsWith('_id') || key.endsWith('_cursor') || key === 'cursor' || key.endsWith('_ms');

/** Where `actual` differs from `expected`, as JSON paths with both values; [] when it matches. */
const jsonDifferences = (expected: Json, actual: Json, at: string, key = ''): string[] => {
  if (expected === ELLIPSIS) return [];
  if (typeof expected === 'string') {
    if (typeof actual !== 'string')
      return [`${at}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`];
    if (isVolatileKey(key) || patternOf(expected).test(actual)) return [];
    return [`${at}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`];
  }
  if (typeof expected === 'number' && typeof actual === 'number' && isVolatileKey(key)) return [];
  if (expected === null || typeof expected !== 'object') {
    return expected === actual ? [] : [`${at}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`];
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return [`${at}: expected an array, got ${JSON.stringify(actual)}`];
    const open = expected.at(-1) === ELLIPSIS;
    const items = open ? expected.slice(0, -1) : expected;
    if (open ? actual.length < items.length : actual.length !== items.length) {
      return [`${at}: expected ${items.length}${open ? ' or more' : ''} items, got ${actual.length}`];
    }
    return items.flatMap((item, index) => jsonDifferences(item, actual[index]!, `${at}[${index}]`, key));
  }
  if (actual === null || typeof actual !== 'object' || Array.isArray(actual)) {
    return [`${at}: expected an object, got ${JSON.stringify(actual)}`];
  }
  const open = ELLIPSIS in expected;
  const differences: string[] = [];
  for (const name of Object.keys(expected)) {
    if (name === ELLIPSIS) continue;
    if (!(name in actual)) differences.push(`${at}.${name}: missing`);
    else differences.push(...jsonDifferences(expected[name]!, actual[name]!, `${at}.${name}`, name));
  }
  if (!open) {
    for (const name of Object.keys(actual))
      if (!(name in expected)) differences.push(`${at}.${name}: not shown in the page`);
  }
  return differences;
};

const STATUS_LINE = /^HTTP\/[\d.]+ \d{3}\b/;
const HEADER_LINE = /^([A-Za-z0-9-]+): /;
const headerName = (segment: Segment | undefined) =>
  segment?.kind === 'text' ? HEADER_LINE.exec(segment.text)?.[1]?.toLowerCase() : undefined;

/**
 * The output of `curl -i` with only the response headers the page shows: after a status line,
 * a header the answer does not name there is dropped (a page shows `Location`, not the
 * twenty security and rate-limit headers).
 */
const withHeadersShown = (got: Segment[], want: Segment[]): Segment[] => {
  const result: Segment[] = [];
  let w = 0;
  for (let g = 0; g < got.length; g++) {
    const segment = got[g]!;
    result.push(segment);
    if (segment.kind !== 'text' || !STATUS_LINE.test(segment.text)) continue;
    const statusAt = want.findIndex((item, index) => index >= w && item.kind === 'text' && STATUS_LINE.test(item.text));
    const shown = new Set<string>();
    if (statusAt !== -1)
      for (let i = statusAt + 1; headerName(want[i]) !== undefined; i++) shown.add(headerName(want[i])!);
    w = statusAt === -1 ? want.length : statusAt + 1;
    while (headerName(got[g + 1]) !== undefined) {
      g++;
      if (shown.has(headerName(got[g])!)) result.push(got[g]!);
    }
  }
  return result;
};

/**
 * How the output differs from the answer the page shows, one line per difference; [] when it
 * matches. JSON is compared by value (formatting is free; `"..."` stands for any value, a
 * `"...": "..."` member for further members, a last `"..."` item for further items); text line
 * by line; volatile values (above) by shape; everything else exactly.
 */
export const answerDifferences = (expected: string, actual: string): string[] => {
  const want = segments(expected);
  const got = withHeadersShown(segments(actual), want);
  const differences: string[] = [];
  for (let i = 0; i < Math.max(want.length, got.length); i++) {
    const w = want[i];
    const g = got[i];
    if (!w) {
      differences.push(`unexpected output: ${g!.kind === 'text' ? g!.text : JSON.stringify(g!.value)}`);
    } else if (!g) {
      differences.push(`missing output: ${w.kind === 'text' ? w.text : JSON.stringify(w.value)}`);
    } else if (w.kind === 'text' && g.kind === 'text') {
      if (w.text !== ELLIPSIS && !patternOf(w.text).test(g.text))
        differences.push(`expected line: ${w.text}\n     got line: ${g.text}`);
    } else if (w.kind === 'json' && g.kind === 'json') {
      differences.push(...jsonDifferences(w.value, g.value, `$${i}`));
    } else {
      differences.push(
        `expected ${w.kind === 'text' ? w.text : JSON.stringify(w.value)}\n     got ${g.kind === 'text' ? g.text : JSON.stringify(g.value)}`,
      );
    }
  }
  return differences;
};
