import { describe, expect, it } from 'vitest';
import { decideDialect } from './dialect-decide.ts';
import { SETTINGS_TYPES } from './dialect-spellings.ts';
import { canonicalExecutorType } from './executors.ts';
import { formatIssue } from './issues.ts';
import { parseYamlDocuments } from './yaml.ts';

const decide = (text: string): ReturnType<typeof decideDialect> => decideDialect(parseYamlDocuments(text).documents[0]);

describe('decideDialect from the spelling of executor settings', () => {
  const cases: { name: string; yaml: string; dialect: '1.x' | '2.x'; marker: string }[] = [
    {
      name: 'a docker setting in 2.x spelling under with',
      yaml: 'steps:\n  - {type: docker, with: {container_name: web}, command: echo}',
      dialect: '2.x',
      marker: 'steps[0].with.container_name',
    },
    {
      name: 'an ssh setting in 2.x spelling under config, the type in capitals',
      yaml: 'steps:\n  - {type: SSH, config: {host: h, strict_host_key: false}, command: echo}',
      dialect: '2.x',
      marker: 'steps[0].config.strict_host_key',
    },
    {
      name: 'a docker setting in 1.x spelling under config of the container alias',
      yaml: 'steps:\n  - {type: container, config: {containerName: web}, command: echo}',
      dialect: '1.x',
      marker: 'steps[0].config.containerName',
    },
    {
      name: 'an http setting in 1.x spelling, in another case as the 1.x reader matches it',
      yaml: 'steps:\n  - {type: http, with: {skiptlsverify: true}, command: GET https://x}',
      dialect: '1.x',
      marker: 'steps[0].with.skiptlsverify',
    },
  ];
  it.each(cases)('reads $name as $dialect', ({ yaml, dialect, marker }) => {
    const decision = decide(yaml);
    expect([decision.errors, decision.dialect, decision.marker?.path]).toEqual([[], dialect, marker]);
  });

  it.each([
    [
      'settings spelled alike in both (image, pull, timeout)',
      'steps:\n  - {type: docker, with: {image: alpine, pull: always}, command: echo}\n  - {type: http, config: {timeout: 5}, command: GET https://x}',
    ],
    [
      'settings of a type whose spellings do not differ',
      'steps:\n  - {type: jq, with: {raw_output: true}, command: .}',
    ],
    ['settings of a step that names no type', 'steps:\n  - {with: {container_name: x}, command: echo}'],
  ])('reads a file with %s as 1.x, with no marker', (_name, yaml) => {
    expect(decide(yaml)).toEqual({ dialect: '1.x', errors: [] });
  });

  it('names a setting of the other dialect, with its spelling there', () => {
    const errors = (yaml: string): string[] => decide(yaml).errors.map(formatIssue);
    expect([
      ...errors('steps:\n  - {type: docker, with: {container_name: web, autoRemove: true}, command: echo}'),
      ...errors('steps:\n  - {executor: {type: http, config: {skip_tls_verify: true}}, command: GET https://x}'),
    ]).toEqual([
      'steps[0].with.autoRemove: "autoRemove" is a Dagu 1.x key, but this file is written in Dagu 2.x keys (the first is "container_name" at steps[0].with.container_name); a file uses one dialect; in Dagu 2.x it is written "auto_remove"',
      'steps[0].executor.config.skip_tls_verify: "skip_tls_verify" is a Dagu 2.x key, but this file is written in Dagu 1.x keys (the first is "executor" at steps[0].executor); a file uses one dialect; in Dagu 1.x it is written "skipTLSVerify"',
    ]);
  });

  it.each(Object.entries(SETTINGS_TYPES))(
    'knows step type %s as the executor %s, as executors.ts does',
    (name, type) => {
      expect(canonicalExecutorType(name)).toBe(type);
    },
  );
});
