import { describe, expect, it } from 'vitest';

import { nodeVersionWarning } from '../../src/startup/node-version.js';

describe('the start-up warning about the Node.js version', () => {
  it('on Node 20: one line naming the version and what to install', () => {
    const warning = nodeVersionWarning('v20.19.1');
    expect(warning).toBe(
      'Node.js v20.19.1 is past its end of life: install Node.js 24 LTS (https://nodejs.org) and start the service with it.',
    );
    expect(warning).not.toContain('\n');
  });

  it('on Node 22 and 24: nothing', () => {
    expect(nodeVersionWarning('v22.12.0')).toBeUndefined();
    expect(nodeVersionWarning('v24.21.0')).toBeUndefined();
  });
});
