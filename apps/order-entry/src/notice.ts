import { el } from './dom.js';
import { describe, isSessionEnded } from './errors.js';

/**
 * A status line beside the buttons whose outcome it tells: a polite live region (role
 * "status"), so a screen reader says each message once without interrupting the clerk.
 */
export const statusLine = (id: string) => el('p', { id, class: 'status', role: 'status', 'aria-live': 'polite' });

export const say = (line: HTMLElement, message: string, problem = false) => {
  line.textContent = message;
  line.classList.toggle('problem', problem);
};

/**
 * A failed call that its caller did not handle, told on `line`: 401 (the host session expired or
 * was revoked) also shows the sign-in message and keeps the form as typed.
 */
export const reportOn = (line: HTMLElement) => (error: unknown) => {
  if (isSessionEnded(error)) {
    document.getElementById('signed-out')!.hidden = false;
    say(line, 'Sign in again to continue.', true);
    return;
  }
  say(line, describe(error), true);
};

/**
 * Runs `call` with `button` off until it settles, so a double click sends once; what `call`
 * lets fail goes to `report`.
 */
export const whileOff = (button: HTMLButtonElement, report: (error: unknown) => void, call: () => Promise<unknown>) => {
  button.disabled = true;
  call()
    .catch(report)
    .finally(() => {
      button.disabled = false;
    });
};
