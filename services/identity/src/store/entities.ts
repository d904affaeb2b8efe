import type { DatabaseOptions } from "@sca/db";
import { ApiKey } from "./entities/api-key.ts";
import { Group } from "./entities/group.ts";
import { Membership } from "./entities/membership.ts";
import { Organization } from "./entities/organization.ts";
import { User } from "./entities/user.ts";

/** The tables of the identity schema. */
export const entities: DatabaseOptions["entities"] = [Organization, Group, User, Membership, ApiKey];
