// The failed-sign-in throttle of one address. After `failures` consecutive failures the address is refused for
// the first window; every further failure after a window ends refuses it for the next window (the last one
// repeats). A success, a password reset or an administrator's unlock clears it. While refused, the password is
// not even checked, so a correct guess inside the window tells the guesser nothing.
export interface ThrottlePolicy {
  enabled: boolean;
  failures: number;
  windowsSeconds: readonly number[];
}

export interface ThrottleState {
  consecutiveFailures: number;
  refusedUntil: Date | null;
}

export const CLEAR: ThrottleState = { consecutiveFailures: 0, refusedUntil: null };

/** Whole seconds the address is still refused (0: it may try). */
export function refusalSecondsLeft(state: ThrottleState, policy: ThrottlePolicy, now: Date): number {
  if (!policy.enabled || !state.refusedUntil) return 0;
  const ms = state.refusedUntil.getTime() - now.getTime();
  return ms > 0 ? Math.ceil(ms / 1000) : 0;
}

export function afterFailure(state: ThrottleState, policy: ThrottlePolicy, now: Date): ThrottleState {
  const consecutiveFailures = state.consecutiveFailures + 1;
  if (!policy.enabled || consecutiveFailures < policy.failures) return { consecutiveFailures, refusedUntil: null };
  const windows = policy.windowsSeconds;
  const window = windows[Math.min(consecutiveFailures - policy.failures, windows.length - 1)]!;
  return { consecutiveFailures, refusedUntil: new Date(now.getTime() + window * 1000) };
}
