export { ProblemError, problemTypeUri, defaultProblemCode } from "./problem-error.ts";
export type { ProblemDocument, ProblemInit, FieldViolation } from "./problem-error.ts";
export { PROBLEM_CODES, RAISED_PROBLEM_CODES, STATUS_PROBLEM_CODES } from "./problem-codes.ts";
export type { ProblemCode } from "./problem-codes.ts";
export { toConnectError, fromConnectError, httpStatusForCode } from "./connect.ts";
export { unstorableTextViolations } from "./text-violations.ts";
