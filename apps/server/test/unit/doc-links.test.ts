import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

import { fromMarkdown } from 'mdast-util-from-markdown';
import { visit } from 'unist-util-visit';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../../../..');

/** Every Markdown file a reader of a clone follows: the READMEs and docs/. */
const markdownFiles = (): string[] => [
  path.join(ROOT, 'README.md'),
  ...['packages/client', 'packages/contract', 'apps/server']
    .map((dir) => path.join(ROOT, dir, 'README.md'))
    .filter((file) => existsSync(file)),
  ...readdirSync(path.join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => path.join(ROOT, 'docs', name)),
];

const relativeLinks = (file: string): string[] => {
  const targets: string[] = [];
  visit(fromMarkdown(readFileSync(file, 'utf8')), (node) => {
    if ((node.type === 'link' || node.type === 'definition') && !/^[a-z][a-z0-9+.-]*:|^#/i.test(node.url)) {
      targets.push(node.url);
    }
  });
  return targets;
};

describe('documentation links', () => {
  it('finds the files it checks, and links in them', () => {
    const files = markdownFiles();
    expect(files.length).toBeGreaterThan(8);
    expect(files.flatMap(relativeLinks).length).toBeGreaterThan(20);
  });

  it('every relative link resolves to a file inside the repository', () => {
    const broken: string[] = [];
    for (const file of markdownFiles()) {
      for (const link of relativeLinks(file)) {
        const target = path.resolve(path.dirname(file), decodeURIComponent(link.split('#')[0]!));
        const inside = target === ROOT || target.startsWith(`${ROOT}${path.sep}`);
        if (!inside || !existsSync(target)) broken.push(`${path.relative(ROOT, file)}: ${link}`);
      }
    }
    expect(broken).toEqual([]);
  });
});
