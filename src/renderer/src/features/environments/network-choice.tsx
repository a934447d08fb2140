import type { ReactElement } from 'react';
import type { NetworkPolicy } from '../../../../shared/domain/environment';

export const NETWORK_WORDS: Record<NetworkPolicy, { title: string; explain: string }> = {
  none: {
    title: 'No network (safest)',
    explain: 'Code in the sandbox cannot reach the internet or any computer on your network.',
  },
  packages: {
    title: 'Package downloads only',
    explain:
      'Code can reach only the package sites set in Settings (pip and npm) and the hosts you allow for this environment, through Sandpit’s filter. Everything else is blocked.',
  },
  open: {
    title: 'Unrestricted internet',
    explain:
      'Code can reach any address: the whole internet and possibly other computers on your network. Pick this only for code you trust.',
  },
};

/** The network policy as a radio group with plain explanations; "open" is marked as unrestricted. */
export function NetworkChoice({
  value,
  onChange,
}: {
  value: NetworkPolicy;
  onChange: (value: NetworkPolicy) => void;
}): ReactElement {
  return (
    <fieldset className="choices" data-testid="env-network">
      <legend className="label">Network access</legend>
      {(Object.keys(NETWORK_WORDS) as NetworkPolicy[]).map((policy) => (
        <label key={policy} className={`choice choice-block${policy === 'open' ? ' choice-danger' : ''}`}>
          <input
            type="radio"
            name="env-network"
            value={policy}
            checked={value === policy}
            onChange={() => onChange(policy)}
            data-testid={`env-network-${policy}`}
          />
          <span>
            <strong>{NETWORK_WORDS[policy].title}</strong>
            {policy === 'open' ? <span className="badge badge-warn">Unrestricted</span> : null}
            <span className="muted small block">{NETWORK_WORDS[policy].explain}</span>
          </span>
        </label>
      ))}
    </fieldset>
  );
}
