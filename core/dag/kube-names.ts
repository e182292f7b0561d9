/**
 * Kubernetes' naming rules (apimachinery's validation), checked when a DAG is loaded so that
 * a mistake is reported with its path in the file instead of as a Pod the API server refuses.
 * Each function returns what is wrong, or undefined when the text is valid.
 */

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const NAME_PART = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const CONFIG_KEY = /^[-._a-zA-Z0-9]+$/;
const PRINTABLE_WITHOUT_EQUALS = /^[\x21-\x3c\x3e-\x7e][\x20-\x3c\x3e-\x7e]*$/;

/** Names of namespaces and volumes: a DNS-1123 label. */
export function dnsLabelProblem(name: string): string | undefined {
  if (name.length <= 63 && DNS_LABEL.test(name)) return undefined;
  return `"${name}" is not a valid name: lower-case letters, digits and "-", starting and ending with a letter or digit, at most 63 characters`;
}

/** Names of Secrets, ConfigMaps, ServiceAccounts, claims and classes: a DNS-1123 subdomain. */
export function dnsSubdomainProblem(name: string): string | undefined {
  if (name.length <= 253 && name.split('.').every((label) => DNS_LABEL.test(label))) return undefined;
  return `"${name}" is not a valid name: lower-case letters, digits, "-" and ".", starting and ending with a letter or digit, at most 253 characters`;
}

/** Label, annotation and node-selector keys: `[prefix/]name`, the prefix a DNS subdomain. */
export function qualifiedNameProblem(key: string): string | undefined {
  const slash = key.indexOf('/');
  const prefix = slash < 0 ? undefined : key.slice(0, slash);
  const name = slash < 0 ? key : key.slice(slash + 1);
  if (prefix !== undefined && (prefix === '' || dnsSubdomainProblem(prefix) !== undefined)) {
    return `"${key}" has an invalid prefix: before the "/" comes a DNS subdomain such as example.com`;
  }
  if (name.length > 63 || !NAME_PART.test(name)) {
    return `"${key}" is not a valid key: letters, digits, "-", "_" and ".", starting and ending with a letter or digit, at most 63 characters (after an optional prefix/)`;
  }
  return undefined;
}

export function labelValueProblem(value: string): string | undefined {
  if (value === '' || (value.length <= 63 && NAME_PART.test(value))) return undefined;
  return `"${value}" is not a valid label value: letters, digits, "-", "_" and ".", starting and ending with a letter or digit, at most 63 characters`;
}

/** Keys of ConfigMaps and Secrets. */
export function configKeyProblem(key: string): string | undefined {
  if (key.length <= 253 && CONFIG_KEY.test(key) && key !== '.' && key !== '..') return undefined;
  return `"${key}" is not a valid key: letters, digits, "-", "_" and "."`;
}

/** Container environment variables: any printable ASCII except "=" (Kubernetes 1.30 and later). */
export function envNameProblem(name: string): string | undefined {
  if (PRINTABLE_WITHOUT_EQUALS.test(name)) return undefined;
  return `"${name}" is not a valid variable name: printable characters without "=", not starting with a space`;
}

/** Keys Kubedag sets itself on its objects; a DAG may not set them. */
export function isReservedKey(key: string): boolean {
  const prefix = key.split('/')[0] ?? '';
  return key.includes('/') && (prefix === 'kubedag.io' || prefix.endsWith('.kubedag.io'));
}
