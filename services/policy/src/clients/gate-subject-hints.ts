// Which team and organization each project was in when projects last answered about it. The gate reads the
// policies of that team before its one projects call (GetGateFacts answers the subject with the facts), instead of
// asking GetGateSubject first. A hint, never the truth: the gate compares it with the subject the facts came with
// and judges again when the project moved (docs/gate.md, "The projects read"). Bounded: the oldest entry goes first.
/** The project a gate verdict is for, with the team and organization whose policies apply. */
export interface GateSubject {
  projectId: string;
  teamId: string;
  organizationId: string | null;
}

export const GATE_SUBJECT_HINTS = 10_000;

export class GateSubjectHints {
  readonly #byProject = new Map<string, GateSubject>();
  readonly #capacity: number;

  constructor(capacity = GATE_SUBJECT_HINTS) {
    this.#capacity = capacity;
  }

  get(projectId: string): GateSubject | null {
    return this.#byProject.get(projectId) ?? null;
  }

  remember(subject: GateSubject): void {
    this.#byProject.delete(subject.projectId);
    this.#byProject.set(subject.projectId, subject);
    if (this.#byProject.size > this.#capacity) this.#byProject.delete(this.#byProject.keys().next().value!);
  }
}

export function sameSubject(a: GateSubject, b: GateSubject): boolean {
  return a.projectId === b.projectId && a.teamId === b.teamId && a.organizationId === b.organizationId;
}
