import { describe, isSessionEnded } from './errors.js';

const notice = () => document.getElementById('notice')!;

/** The status line at the top: what just happened, or what went wrong. */
export const say = (message: string, problem = false) => {
  notice().textContent = message;
  notice().classList.toggle('problem', problem);
};

/**
 * Every failed call ends here unless its caller handled it: 401 (the host session expired or
 * was revoked) shows the sign-in message and keeps the form as typed; anything else is said.
 */
export const report = (error: unknown) => {
  if (isSessionEnded(error)) {
    document.getElementById('signed-out')!.hidden = false;
    say('Sign in again to continue.', true);
    return;
  }
  say(describe(error), true);
};
