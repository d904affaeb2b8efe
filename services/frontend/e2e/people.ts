// Who the UI specs act as: made by e2e/run.ts through the API and handed over in UI_PEOPLE.
export interface Person {
  email: string;
  password: string;
}

export interface People {
  admin: Person & { token: string };
  teamId: string;
  teamName: string;
  developer: Person;
  viewer: Person;
  outsider: Person;
}

export function people(): People {
  const raw = process.env.UI_PEOPLE;
  if (!raw) throw new Error("UI_PEOPLE is not set: run the suite through e2e/run.ts");
  return JSON.parse(raw) as People;
}
