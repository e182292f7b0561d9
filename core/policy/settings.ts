/**
 * The pod policy settings, declared once and read by both the operator and the API server: the
 * API server validates DAGs with the same level the operator enforces (chart value `podPolicy`
 * sets both).
 */
import { setting, type SettingName } from '../settings.ts';
import { isPolicyLevel, POLICY_LEVELS, type PolicyLevel } from './pod-standards.ts';

function level(text: string, s: SettingName): PolicyLevel {
  if (isPolicyLevel(text)) return text;
  throw new Error(`${s.name} must be one of ${POLICY_LEVELS.join(', ')}, not "${text}"`);
}

export const POD_POLICY_SETTINGS = {
  podPolicy: setting<PolicyLevel>({
    flag: 'pod-policy',
    group: 'Pod policy',
    values: POLICY_LEVELS,
    default: 'baseline',
    description:
      'The most a DAG may ask of its Pods, as a Pod Security Standard, in namespaces without the label kubedag.io/pod-policy (which a cluster administrator sets to raise or lower it for one namespace).',
    read: level,
  }),
};
