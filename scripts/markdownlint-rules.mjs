// Rules of our own for markdownlint-cli2 (pnpm lint), for what its built-in rules let through.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository's root: this file's folder's parent, wherever markdownlint runs from. */
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const FENCE = /^ {0,3}(`{3,}|~{3,})/;

/** The 1-based numbers of the lines inside fenced code, and the opening line of an unclosed fence. */
const fencedLines = (lines) => {
  const inside = new Set();
  let open;
  lines.forEach((line, index) => {
    const fence = FENCE.exec(line);
    if (open) {
      inside.add(index + 1);
      if (
        fence &&
        fence[1][0] === open.marker[0] &&
        fence[1].length >= open.marker.length &&
        line.trim() === fence[1]
      ) {
        open = undefined;
      }
    } else if (fence) {
      open = { marker: fence[1], line: index + 1 };
      inside.add(index + 1);
    }
  });
  return { inside, unclosed: open?.line };
};

/** A fence left open turns the rest of the page into code (CommonMark closes it at the end). */
const fencesClosed = {
  names: ['fences-closed'],
  description: 'Every code fence is closed',
  tags: ['code'],
  parser: 'none',
  function: (params, onError) => {
    const { unclosed } = fencedLines(params.lines);
    if (unclosed !== undefined) onError({ lineNumber: unclosed, detail: 'this fence is never closed' });
  },
};

/**
 * The fragments a Markdown file's headings answer to, as GitHub makes them: lower case, spaces
 * to hyphens, punctuation other than hyphens and underscores dropped, `-1`, `-2` after repeats.
 */
const headingAnchors = (file) => {
  const lines = readFileSync(file, 'utf8').split('\n');
  const { inside } = fencedLines(lines);
  const anchors = new Set();
  const seen = new Map();
  lines.forEach((line, index) => {
    const heading = /^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading || inside.has(index + 1)) return;
    const text = heading[1].replace(/`([^`]*)`/g, '$1').replace(/\[([^\]]*)\]\([^)]*\)/g, '$1');
    const slug = text
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  });
  return anchors;
};

/**
 * Links to files of the repository (relative links) must reach a file inside it, and a fragment
 * of a Markdown file one of its headings.
 */
const relativeLinksExist = {
  names: ['relative-links-exist'],
  description: 'Relative links resolve to a file inside the repository',
  tags: ['links'],
  parser: 'none',
  function: (params, onError) => {
    const root = ROOT;
    const { inside } = fencedLines(params.lines);
    params.lines.forEach((raw, index) => {
      if (inside.has(index + 1)) return;
      const line = raw.replace(/`[^`]*`/g, '');
      const targets = [
        ...[...line.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((match) => match[1]),
        ...[...line.matchAll(/^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/g)].map((match) => match[1]),
      ];
      for (const target of targets) {
        if (/^[a-z][a-z0-9+.-]*:|^#/i.test(target)) continue;
        const [filePart, fragment] = target.split('#');
        const file = path.resolve(path.dirname(params.name), decodeURIComponent(filePart));
        const within = file === root || file.startsWith(`${root}${path.sep}`);
        if (!within || !existsSync(file))
          onError({ lineNumber: index + 1, detail: `${target} does not resolve`, context: target });
        else if (fragment && file.endsWith('.md') && !headingAnchors(file).has(decodeURIComponent(fragment)))
          onError({ lineNumber: index + 1, detail: `${target}: no heading of that name`, context: target });
      }
    });
  },
};

/**
 * Where a page's paths may start: the repository's root, each package of the workspace (a page
 * about the order entry page writes `src/lines.ts` for apps/order-entry's) and the server's sources.
 */
const PATH_BASES = [
  ROOT,
  ...['apps', 'packages'].flatMap((folder) =>
    existsSync(path.join(ROOT, folder))
      ? readdirSync(path.join(ROOT, folder)).map((name) => path.join(ROOT, folder, name))
      : [],
  ),
  path.join(ROOT, 'apps/server/src'),
];
/** Folders that a clone has only after an install, a build or a start: not the repository's files. */
const BUILT = new Set(['node_modules', 'dist', 'generated', 'data', 'coverage', '.turbo']);
/** A placeholder (`<name>`, `...`) or a glob (`*`, `?`, `{a,b}`, `[ab]`) stands for paths, not one path. */
const PATTERN = /[<>*?{}[\]…]|\.\.\./;
/** A code span that looks like a path: no spaces, quotes or URL parts, at least one slash inside it. */
const PATH_LIKE = /^[A-Za-z0-9._@-]+(?:\/[A-Za-z0-9._@-]+)+\/?$/;

const isDirectory = (file) => existsSync(file) && statSync(file).isDirectory();

/**
 * The path a code span names when it is a repository path, or undefined. A span is taken for one
 * when its first folder is a folder of the page's own folder or of a base above
 * (`src/orders/order-pricing.ts`, `test/read-plans.test.ts`,
 * `packages/contract/src/common.ts`, `orders/store/order-read-shape.ts`, `decisions/x.md` from
 * docs/); anything else with a slash is prose (`application/json`, `DATA_DIR/pgdata`).
 */
const repositoryPath = (span, pageDir) => {
  if (!PATH_LIKE.test(span) || PATTERN.test(span)) return undefined;
  const segments = span.replace(/\/$/, '').split('/');
  if (segments.some((segment) => BUILT.has(segment) || segment === '..')) return undefined;
  const bases = [pageDir, ...PATH_BASES];
  return bases.some((base) => isDirectory(path.join(base, segments[0]))) ? { span, bases } : undefined;
};

/**
 * Every repository path a page names in a code span exists: a file moved or renamed leaves no
 * page pointing at nothing. Placeholders and globs are left alone.
 */
const codePathsExist = {
  names: ['code-paths-exist'],
  description: 'Repository paths named in code spans exist',
  tags: ['links'],
  parser: 'none',
  function: (params, onError) => {
    const { inside } = fencedLines(params.lines);
    const pageDir = path.dirname(path.resolve(params.name));
    params.lines.forEach((line, index) => {
      if (inside.has(index + 1)) return;
      for (const match of line.matchAll(/(?<!`)`([^`]+)`(?!`)/g)) {
        const named = repositoryPath(match[1].trim(), pageDir);
        if (!named) continue;
        if (!named.bases.some((base) => existsSync(path.join(base, named.span))))
          onError({
            lineNumber: index + 1,
            detail: `${named.span} is not a file or folder of the repository`,
            context: match[0],
          });
      }
    });
  },
};

export default [fencesClosed, relativeLinksExist, codePathsExist];
