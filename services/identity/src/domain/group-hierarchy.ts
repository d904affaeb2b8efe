// The group tree: a group may move anywhere in its organization except under itself or its own subtree.

/**
 * Whether putting `groupId` under `newParentId` would close a loop. `ancestorsOfNewParent` lists the new
 * parent's ancestors (nearest first, not including the new parent itself).
 */
export function moveCreatesCycle(
  groupId: string,
  newParentId: string | null,
  ancestorsOfNewParent: readonly string[],
): boolean {
  if (newParentId === null) return false;
  return newParentId === groupId || ancestorsOfNewParent.includes(groupId);
}
