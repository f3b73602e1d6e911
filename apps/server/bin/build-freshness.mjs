// Whether the server's build (and the workspace packages it is built from) is older than its
// sources, by file times: a few hundred stat calls, milliseconds, where asking turbo costs 3-7 s
// of hashing on a busy machine. Plain JavaScript: it runs before anything is built.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

/** Folders of a package that are not inputs of its build (outputs, caches, tests). */
const NOT_INPUTS = new Set(['node_modules', 'dist', '.turbo', 'coverage', 'test', 'data']);

/** The workspace's packages (`apps/*`, `packages/*`): name -> folder and workspace dependencies. */
const workspacePackages = (root) => {
  const found = new Map();
  for (const parent of ['apps', 'packages']) {
    const folder = path.join(root, parent);
    if (!existsSync(folder)) continue;
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const manifest = path.join(folder, entry.name, 'package.json');
      if (!entry.isDirectory() || !existsSync(manifest)) continue;
      const json = JSON.parse(readFileSync(manifest, 'utf8'));
      const declared = { ...json.dependencies, ...json.devDependencies };
      const dependencies = Object.keys(declared).filter((name) => String(declared[name]).startsWith('workspace:'));
      found.set(json.name, { folder: path.join(parent, entry.name), dependencies });
    }
  }
  return found;
};

/** The newest file under `folder` (skipping `skip` names) as [mtimeMs, relative path]; [0] when none. */
const newestFile = (root, folder, skip) => {
  let newest = [0, undefined];
  const walk = (relative) => {
    let entries;
    try {
      entries = readdirSync(path.join(root, relative), { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      if (skip.has(entry.name)) continue;
      const child = path.join(relative, entry.name);
      if (entry.isDirectory()) walk(child);
      else if (entry.isFile()) {
        const time = statSync(path.join(root, child)).mtimeMs;
        if (time > newest[0]) newest = [time, child];
      }
    }
  };
  walk(folder);
  return newest;
};

/**
 * Why `target` (a workspace package name) needs a build, in words, or undefined when its build
 * and every workspace package it depends on are at least as new as their sources. A package is
 * stale when a source of it or of a package it depends on is newer than both its newest built
 * file (`dist/`) and `builtAt` (when a build of the whole chain last succeeded, ms; 0 unknown).
 */
export const whyBuild = (root, target, builtAt = 0) => {
  const packages = workspacePackages(root);
  const newestInput = new Map();
  const inputsOf = (name) => {
    if (!newestInput.has(name)) newestInput.set(name, newestFile(root, packages.get(name).folder, NOT_INPUTS));
    return newestInput.get(name);
  };
  const seen = new Set();
  const visit = (name) => {
    if (seen.has(name) || !packages.has(name)) return undefined;
    seen.add(name);
    const { folder, dependencies } = packages.get(name);
    for (const dependency of dependencies) {
      const why = visit(dependency);
      if (why) return why;
    }
    const [built] = newestFile(root, path.join(folder, 'dist'), new Set());
    if (built === 0) return `${name} has no build yet`;
    const chain = [name, ...closure(packages, name)].map(inputsOf).sort((a, b) => b[0] - a[0]);
    const [time, file] = chain[0];
    if (time > Math.max(built, builtAt)) return `${file} changed after the last build`;
    return undefined;
  };
  return visit(target);
};

/** Every workspace package `name` depends on, directly or not. */
const closure = (packages, name, found = new Set()) => {
  for (const dependency of packages.get(name)?.dependencies ?? []) {
    if (found.has(dependency) || !packages.has(dependency)) continue;
    found.add(dependency);
    closure(packages, dependency, found);
  }
  return found;
};
