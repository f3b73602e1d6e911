import type { Reporter, TestCase, TestModule, TestSuite, Vitest } from 'vitest/node';

/**
 * After vitest's own summary, names what was skipped and why, so that a run on a machine
 * without PostgreSQL, Redis or Chromium says what it did not test. Every conditional skip in
 * this suite carries its reason in its name ("(needs TEST_DATABASE_URL)", "(skipped: ...)") or
 * in the note of `context.skip(note)`; a suite skipped as a whole is named once, with how many
 * tests it holds.
 */
export default class SkippedTestsReporter implements Reporter {
  private namePattern: RegExp | undefined;

  onInit(vitest: Vitest): void {
    this.namePattern = vitest.config.testNamePattern;
  }

  /** Left out by `-t`: not run because the caller did not ask for it, not skipped. */
  private notSelected(test: TestCase): boolean {
    if (!this.namePattern) return false;
    this.namePattern.lastIndex = 0;
    return !this.namePattern.test(test.fullName.replaceAll(' > ', ' '));
  }

  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const skipped = new Map<string, number>();
    for (const testModule of testModules) {
      for (const test of testModule.children.allTests('skipped')) {
        if (this.notSelected(test)) continue;
        const result = test.result();
        const note = (result.state === 'skipped' ? result.note : undefined) ?? setUpFailed(test);
        const label = `${testModule.relativeModuleId} > ${outermostSkipped(test).fullName}${note ? ` (${note})` : ''}`;
        skipped.set(label, (skipped.get(label) ?? 0) + 1);
      }
    }
    if (skipped.size === 0) return;
    const lines = [...skipped].map(([label, count]) => `  ${label}${count > 1 ? ` [${count} tests]` : ''}`);
    process.stdout.write(`\nSkipped, each saying why:\n${lines.join('\n')}\n`);
  }
}

/**
 * A test skipped because a hook of a suite around it (or of its file) failed: vitest reports it as
 * skipped with no note, and the failure itself among the errors above.
 */
const setUpFailed = (test: TestCase): string | undefined => {
  for (let parent = test.parent; ; parent = parent.parent) {
    if (parent.state() === 'failed') return 'not run: a set-up around it failed, see the errors above';
    if (parent.type === 'module') return undefined;
  }
};

/**
 * The test, or the outermost suite around it whose every test is skipped and that holds more than
 * one test (a suite of one test is named by its test, which carries the reason).
 */
const outermostSkipped = (test: TestCase): TestCase | TestSuite => {
  let found: TestCase | TestSuite = test;
  let parent = test.parent;
  while (parent.type === 'suite') {
    const tests = [...parent.children.allTests()];
    if (tests.length < 2 || !tests.every((each) => each.result().state === 'skipped')) break;
    found = parent;
    parent = parent.parent;
  }
  return found;
};
