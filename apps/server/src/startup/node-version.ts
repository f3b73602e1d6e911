/**
 * What start-up says, in one line on stderr, on a Node.js older than the LTS the service is built
 * and tested on: it still runs (package.json engines: >= 20.19) but gets no more security fixes
 * there. The README's first command says the same.
 */
export const nodeVersionWarning = (version: string): string | undefined =>
  Number(version.replace(/^v/, '').split('.')[0]) < 22
    ? `Node.js ${version} is past its end of life: install Node.js 24 LTS (https://nodejs.org) and start the service with it.`
    : undefined;
