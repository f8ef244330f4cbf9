import type { ExposurePreset } from '@goondan/base';

/**
 * The assistant pack's exposure (builtin-tools-assistant.md "Baseline (항상 노출)" and "조건부" sections, v2 names
 * per docs/tool-names.md). `core`: the catalogue's always-on tools (time, reminders, alarms, timers, memory, the
 * current user, calculator, boards); the self-editing and administration groups wait to be enabled or found with
 * tools__search. Names of Tools an Agent does not list are simply absent (no warning).
 */
export const assistantExposurePreset: ExposurePreset = {
  baseline: ['group:core'],
  groups: {
    core: [
      'datetime__now',
      'datetime__parse',
      'calculate__eval',
      'reminders__create',
      'reminders__list',
      'reminders__complete',
      'alarms__set',
      'alarms__list',
      'alarms__cancel',
      'timers__set',
      'timers__list',
      'timers__cancel',
      'memory__save',
      'memory__update',
      'memory__search',
      'user__set_current',
      'kanban__create_board',
      'kanban__list_boards',
      'kanban__list',
      'kanban__add_card',
      'kanban__move_card',
      'kanban__update_card',
      'kanban__delete_card',
      'clipboard__read',
      'clipboard__write',
      'music__now_playing',
      'music__play_pause',
      'music__next',
      'music__search_play',
      'finder__reveal',
      'finder__get_selection',
      'finder__list_dir',
    ],
    settings: [
      'settings__get',
      'settings__set',
      'settings__list',
      'settings__mcp_add_server',
      'settings__mcp_update_server',
      'settings__mcp_remove_server',
    ],
    agent: ['agent__create', 'agent__list', 'agent__set_active'],
    'agent-editor': [
      'agent__persona_get',
      'agent__persona_search',
      'agent__persona_update',
      'agent__persona_replace',
      'agent__persona_delete_lines',
      'agent__memory_get',
      'agent__memory_append',
      'agent__memory_replace',
      'agent__memory_update',
      'agent__config_get',
      'agent__config_update',
    ],
    context: ['context__update_base_system_prompt'],
    profile: ['profile__create', 'profile__add_alias', 'profile__rename', 'profile__merge'],
    url: ['url__open'],
  },
};
