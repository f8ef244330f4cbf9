import type { ToolContext } from '@goondan/core';
import { peopleDatabase, speakerOf } from '../../src/people/people-database.ts';
import { checkedName, profileView, setCurrentProfile } from '../../src/people/people-store.ts';

export const handlers = {
  set_current: (ctx: ToolContext, input: { name: string }) => {
    const profile = setCurrentProfile(peopleDatabase(ctx), speakerOf(ctx), checkedName(input.name, 'name'));
    return { currentUser: profile.name, profile: profileView(profile) };
  },
};
