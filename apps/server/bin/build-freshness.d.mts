/**
 * Why `target` (a workspace package name) needs a build, in words, or undefined when its build
 * and those of the workspace packages it depends on are at least as new as their sources.
 * `builtAt`: when a build of the whole chain last succeeded (ms since the epoch; 0 unknown).
 */
export declare const whyBuild: (root: string, target: string, builtAt?: number) => string | undefined;
