// Rules of our own for markdownlint-cli2 (pnpm lint), for what its built-in rules let through.
import { existsSync } from 'node:fs';
import path from 'node:path';

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

/** Links to files of the repository (relative links) must reach a file inside it. */
const relativeLinksExist = {
  names: ['relative-links-exist'],
  description: 'Relative links resolve to a file inside the repository',
  tags: ['links'],
  parser: 'none',
  function: (params, onError) => {
    const root = process.cwd();
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
        const file = path.resolve(path.dirname(params.name), decodeURIComponent(target.split('#')[0]));
        const within = file === root || file.startsWith(`${root}${path.sep}`);
        if (!within || !existsSync(file))
          onError({ lineNumber: index + 1, detail: `${target} does not resolve`, context: target });
      }
    });
  },
};

export default [fencesClosed, relativeLinksExist];
