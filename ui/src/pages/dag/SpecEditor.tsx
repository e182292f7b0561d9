/**
 * The YAML editor: CodeMirror 6 with YAML highlighting, and the spec's problems as lint
 * diagnostics (underlines, gutter marks, messages on hover). The problems come from outside
 * (SpecTab checks every version of the text) and are set with setDiagnostics, so that the
 * browser's instant check and the server's later answer both land in the same place.
 *
 * Colours are the app's CSS variables, so the editor follows the light and dark themes; the
 * lint marks are drawn with CSS, since the Content-Security-Policy blocks the data: images
 * CodeMirror uses by default.
 */
import { HighlightStyle, syntaxHighlighting } from '@codemirror/language';
import { yaml } from '@codemirror/lang-yaml';
import { lintGutter, setDiagnostics, type Diagnostic } from '@codemirror/lint';
import { EditorState, Prec } from '@codemirror/state';
import { keymap } from '@codemirror/view';
import { tags } from '@lezer/highlight';
import { basicSetup, EditorView } from 'codemirror';
import { useEffect, useRef, type ReactNode } from 'react';
import type { Problem } from './spec-lint.ts';

const highlight = HighlightStyle.define([
  { tag: tags.definition(tags.propertyName), color: 'var(--cm-key)' },
  { tag: tags.string, color: 'var(--cm-string)' },
  { tag: tags.special(tags.string), color: 'var(--cm-meta)' },
  { tag: tags.lineComment, color: 'var(--text-faint)', fontStyle: 'italic' },
  { tag: [tags.meta, tags.labelName, tags.typeName, tags.keyword], color: 'var(--cm-meta)' },
  { tag: [tags.separator, tags.punctuation, tags.squareBracket, tags.brace], color: 'var(--text-muted)' },
]);

const theme = EditorView.theme({
  '&': { backgroundColor: 'var(--surface)', color: 'var(--text)', fontSize: '13px', height: '100%' },
  '&.cm-focused': { outline: '2px solid var(--focus)', outlineOffset: '-1px' },
  '.cm-scroller': { fontFamily: 'var(--font-mono)', lineHeight: '1.6' },
  '.cm-content': { caretColor: 'var(--text)', padding: '8px 0' },
  '.cm-cursor, .cm-dropCursor': { borderLeftColor: 'var(--text)' },
  '.cm-gutters': {
    backgroundColor: 'var(--surface-sunken)',
    color: 'var(--text-muted)',
    borderRight: '1px solid var(--border)',
  },
  '.cm-activeLine': { backgroundColor: 'color-mix(in srgb, var(--accent) 6%, transparent)' },
  '.cm-activeLineGutter': {
    backgroundColor: 'color-mix(in srgb, var(--accent) 10%, transparent)',
    color: 'var(--text)',
  },
  '&.cm-focused > .cm-scroller > .cm-selectionLayer .cm-selectionBackground, .cm-selectionBackground, .cm-content ::selection':
    { backgroundColor: 'color-mix(in srgb, var(--accent) 28%, transparent) !important' },
  '.cm-matchingBracket': { backgroundColor: 'color-mix(in srgb, var(--accent) 20%, transparent)', outline: 'none' },
  '.cm-foldPlaceholder': {
    backgroundColor: 'var(--surface-sunken)',
    border: '1px solid var(--border)',
    color: 'var(--text-muted)',
  },
  '.cm-tooltip': {
    backgroundColor: 'var(--surface)',
    color: 'var(--text)',
    border: '1px solid var(--border-strong)',
    borderRadius: '6px',
    boxShadow: '0 6px 20px rgb(0 0 0 / 18%)',
  },
  '.cm-tooltip-lint': { padding: '2px 0' },
  '.cm-diagnostic': { padding: '4px 10px', fontFamily: 'var(--font-sans)', fontSize: '13px', maxWidth: '60ch' },
  '.cm-diagnostic-error': { borderLeft: '4px solid var(--tone-failure)' },
  '.cm-diagnosticSource': { color: 'var(--text-muted)', fontSize: '11.5px' },
  '.cm-lintRange-error': {
    backgroundImage: 'none',
    textDecoration: 'underline wavy var(--tone-failure)',
    textDecorationSkipInk: 'none',
    textUnderlineOffset: '3px',
  },
  '.cm-lintRange-active': { backgroundColor: 'color-mix(in srgb, var(--tone-failure) 14%, transparent)' },
  '.cm-lint-marker': { width: '0.6em', height: '0.6em', margin: '0.45em 0.2em 0', borderRadius: '50%' },
  '.cm-lint-marker-error': { content: 'normal', backgroundColor: 'var(--tone-failure)' },
  '.cm-panels': { backgroundColor: 'var(--surface-sunken)', color: 'var(--text)' },
  '.cm-searchMatch': { backgroundColor: 'color-mix(in srgb, var(--tone-warning) 30%, transparent)' },
});

function diagnostics(problems: readonly Problem[], length: number): Diagnostic[] {
  // A problem found in an older version of the text may reach past the current end.
  return problems.map((p) => {
    const from = Math.min(p.from, length);
    return {
      from,
      to: Math.min(Math.max(p.to, from), length),
      severity: 'error',
      message: p.message,
      source: p.source === 'server' ? 'server' : 'schema',
    };
  });
}

interface SpecEditorProps {
  /** The text the editor starts with; later changes of this prop are ignored (the editor owns the text). */
  readonly initial: string;
  readonly problems: readonly Problem[];
  /**
   * The text the problems were found in. Problems of an older text are not set: the editor
   * keeps the ones it has, moved along with the edits, until those of the current text come.
   */
  readonly problemsFor: string;
  readonly label: string;
  readonly onChange: (text: string) => void;
  /** Ctrl+S / Cmd+S. */
  readonly onSave: () => void;
  /** Lets the page move the cursor to a problem. */
  readonly viewRef?: React.RefObject<EditorView | null>;
}

export function SpecEditor({
  initial,
  problems,
  problemsFor,
  label,
  onChange,
  onSave,
  viewRef,
}: SpecEditorProps): ReactNode {
  const parent = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  // The editor is made once; these keep its callbacks pointing at the latest props.
  const latest = useRef({ onChange, onSave });
  useEffect(() => {
    latest.current = { onChange, onSave };
  });
  useEffect(() => {
    const extensions = [
      basicSetup,
      yaml(),
      syntaxHighlighting(highlight),
      lintGutter(),
      theme,
      EditorState.tabSize.of(2),
      EditorView.contentAttributes.of({ 'aria-label': label }),
      Prec.highest(
        keymap.of([
          {
            key: 'Mod-s',
            preventDefault: true,
            run: () => {
              latest.current.onSave();
              return true;
            },
          },
        ]),
      ),
      EditorView.updateListener.of((update) => {
        if (update.docChanged) latest.current.onChange(update.state.doc.toString());
      }),
    ];
    const created = new EditorView({
      parent: parent.current ?? undefined,
      state: EditorState.create({ doc: initial, extensions }),
    });
    view.current = created;
    if (viewRef !== undefined) viewRef.current = created;
    return () => {
      created.destroy();
      view.current = null;
    };
    // Made once per mount: `initial` seeds it, and the text is the editor's from then on.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);
  useEffect(() => {
    const current = view.current;
    if (current === null || current.state.doc.toString() !== problemsFor) return;
    current.dispatch(setDiagnostics(current.state, diagnostics(problems, current.state.doc.length)));
  }, [problems, problemsFor]);
  return <div className="spec-editor" ref={parent} />;
}
