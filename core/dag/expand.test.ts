import { describe, expect, it } from 'vitest';
import { expand, hasCommandSubstitution, walkPath, type ExpandOptions } from './expand.ts';

const scopes: ExpandOptions['scopes'] = [
  { STEP: 'step-scope', SHADOW: 'from-step' },
  {
    NAME: 'world',
    EMPTY: '',
    CFG: '{"port":8080,"items":[{"n":"a"},{"n":"b"}],"on":true,"none":null,"obj":{"k":"v"}}',
    ID: 'HBL01_22OCT2025_0536',
    Q: 'say "hi"',
    '1': 'first',
    R: '{"name":"child","dagRunId":"r1","params":"","outputs":{"TOTAL":"42"},"status":"succeeded"}',
  },
  { SHADOW: 'from-env', DAGENV: 'dag' },
];
const steps: ExpandOptions['steps'] = {
  build: { stdout: '/logs/build.out', stderr: '/logs/build.err', exitCode: 0 },
  idle: { stdout: '' },
};

describe('expand without the shell-style pass (commands a shell runs)', () => {
  const cases: { name: string; text: string; want: string }[] = [
    { name: 'replaces ${VAR} and $VAR', text: 'hello ${NAME} and $NAME', want: 'hello world and world' },
    { name: 'takes the highest-precedence scope first', text: '$SHADOW', want: 'from-step' },
    { name: 'reads later scopes when earlier ones lack a name', text: '${DAGENV}', want: 'dag' },
    { name: 'leaves unknown variables for the shell', text: 'echo $HOME ${MISSING}', want: 'echo $HOME ${MISSING}' },
    { name: 'does not take a longer name for a shorter one', text: '$NAMEX', want: '$NAMEX' },
    { name: 'ends a bare name at a dot when the value is not JSON', text: '$NAME.txt', want: 'world.txt' },
    {
      name: 'protects a reference wrapped in single quotes',
      text: "echo '${NAME}' '$NAME'",
      want: "echo '${NAME}' '$NAME'",
    },
    {
      name: 'does not protect single quotes that do not touch the reference',
      text: "'a $NAME b'",
      want: "'a world b'",
    },
    { name: 'reads a field of a JSON variable', text: '${CFG.port}', want: '8080' },
    { name: 'indexes JSON arrays', text: '${CFG.items[1].n} ${CFG.items.[0].n}', want: 'b a' },
    {
      name: 'renders booleans, null and objects like jq -r',
      text: '${CFG.on} ${CFG.none} ${CFG.obj}',
      want: 'true null {"k":"v"}',
    },
    { name: 'reads a bare JSON path reference', text: 'port=$CFG.port,', want: 'port=8080,' },
    { name: 'leaves a missing JSON field literal', text: '${CFG.nope}', want: '${CFG.nope}' },
    { name: 'leaves a path into a non-JSON value literal', text: '${NAME.x}', want: '${NAME.x}' },
    {
      name: 'gives a step log location by id',
      text: 'cat ${build.stdout} ${build.stderr}',
      want: 'cat /logs/build.out /logs/build.err',
    },
    { name: 'gives a step exit code by id', text: 'code=${build.exitCode} ${build.exit_code}', want: 'code=0 0' },
    { name: 'slices a step property', text: '${build.stdout:1:4}', want: 'logs' },
    { name: 'leaves an unknown step property slice literal', text: '${build.stdout:-1}', want: '${build.stdout:-1}' },
    { name: 'treats an empty step location as unresolved', text: '${idle.stdout}', want: '${idle.stdout}' },
    { name: 'quotes a double-quoted reference as a JSON string', text: 'echo "${Q}"', want: 'echo "say \\"hi\\""' },
    { name: 'quotes a double-quoted JSON path result', text: '"${CFG.items[0].n}"', want: '"a"' },
    { name: 'reads a sub-DAG output through its outputs object', text: '${R.outputs.TOTAL}', want: '42' },
    { name: 'replaces positional parameters', text: 'echo $1 ${1}', want: 'echo first first' },
    { name: 'keeps shell operators for the shell', text: '${NAME:-x} ${ID:0:5}', want: '${NAME:-x} ${ID:0:5}' },
    { name: 'keeps a lone dollar sign', text: 'costs $ 5 and $', want: 'costs $ 5 and $' },
  ];
  it.each(cases)('$name', ({ text, want }) => {
    expect(expand(text, { scopes, steps }).value).toBe(want);
  });
});

describe('expand with the shell-style pass (values no shell sees)', () => {
  const environment = { HOME: '/home/user' };
  const cases: { name: string; text: string; want: string }[] = [
    { name: 'uses a fallback when the variable is unset', text: '${MISSING:-fb}', want: 'fb' },
    { name: 'uses a fallback when the variable is empty', text: '${EMPTY:-fb}', want: 'fb' },
    { name: 'keeps an empty value with the - form', text: '[${EMPTY-fb}]', want: '[]' },
    { name: 'keeps a set value over its fallback', text: '${NAME:-fb}', want: 'world' },
    { name: 'takes a substring', text: '${ID:0:5}', want: 'HBL01' },
    { name: 'takes the rest from an offset', text: '${ID:16}', want: '0536' },
    { name: 'counts a negative offset from the end', text: '${ID: -4}', want: '0536' },
    { name: 'stops a negative length before the end', text: '${ID:0:-2}', want: 'HBL01_22OCT2025_05' },
    { name: 'gives nothing for an offset past the end', text: '[${ID:100}]', want: '[]' },
    { name: 'falls back to the given environment', text: '$HOME/x', want: '/home/user/x' },
    { name: 'empties variables that are set nowhere', text: 'a${NOPE}b $NOPE2', want: 'ab ' },
    { name: 'still protects single-quoted references', text: "'$NOPE'", want: "'$NOPE'" },
  ];
  it.each(cases)('$name', ({ text, want }) => {
    expect(expand(text, { scopes, steps, shell: true, environment }).value).toBe(want);
  });
});

describe('backtick command substitution', () => {
  it('is never run: the commands come back for the runtime', () => {
    expect(expand('today is `date +%F` on `hostname`', { scopes })).toEqual({
      value: 'today is `date +%F` on `hostname`',
      commands: ['date +%F', 'hostname'],
    });
  });

  it('expands variables inside the command first', () => {
    expect(expand('`echo $NAME`', { scopes }).commands).toEqual(['echo world']);
  });

  it('substitutes results the runtime already has', () => {
    const commandResults = new Map([['echo world', 'world']]);
    expect(expand('x=`echo $NAME` y=`date`', { scopes, commandResults })).toEqual({
      value: 'x=world y=`date`',
      commands: ['date'],
    });
  });

  it('leaves escaped, empty and unclosed backticks alone', () => {
    expect(expand('\\`no\\` `` `open', { scopes })).toEqual({ value: '\\`no\\` `` `open', commands: [] });
  });

  it('detects substitution for callers that must send work to a Pod', () => {
    expect(hasCommandSubstitution('a `b` c')).toBe(true);
    expect(hasCommandSubstitution('a \\`b\\` c')).toBe(false);
  });
});

describe('walkPath', () => {
  const data = { a: { 'b c': [10, { d: 'e' }] } };
  const cases: { name: string; path: string; want: { value: unknown } | undefined }[] = [
    { name: 'follows keys and indexes', path: '.a["b c"][1].d', want: { value: 'e' } },
    { name: 'returns the whole value for an empty path', path: '', want: { value: data } },
    { name: 'refuses an index past the end', path: '.a["b c"][5]', want: undefined },
    { name: 'refuses a key on a list', path: '.a["b c"].d', want: undefined },
    { name: 'refuses malformed paths', path: '..a', want: undefined },
  ];
  it.each(cases)('$name', ({ path, want }) => {
    expect(walkPath(data, path)).toEqual(want);
  });
});
