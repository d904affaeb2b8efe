// What a failed call to the source host means for work no person waits on (docs/scm.md): the automatic pull-request
// comment and the reconciliation of remediation records left `creating`.

/**
 * Whether the host may answer later: it did not answer, answered 5xx or asked to slow down (429). Any other refusal
 * (the pull request or repository gone, the installation without the right) would be repeated, so it is final.
 */
export function hostMayAnswerLater(remoteStatus: number | null): boolean {
  return remoteStatus === null || remoteStatus === 429 || remoteStatus >= 500;
}
