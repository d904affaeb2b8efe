import type { DatabaseOptions } from "@sca/db";
import { Project } from "./entities/project.ts";

/** The tables of the projects schema. */
export const entities: DatabaseOptions["entities"] = [Project];
