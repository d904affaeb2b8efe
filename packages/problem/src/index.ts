export { ProblemError, problemTypeUri, defaultProblemCode } from "./problem-error.ts";
export type { ProblemDocument, ProblemInit, FieldViolation } from "./problem-error.ts";
export { toConnectError, fromConnectError, httpStatusForCode } from "./connect.ts";
export { unstorableTextViolations } from "./text-violations.ts";
