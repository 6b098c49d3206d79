/** applyFamilyChanges (classes/Member/family.ts): what a family member update changes, pure. */
import { applyFamilyChanges, FAMILY_FIELDS } from '../../classes/Member/family';

const dependant = {
  name: 'Kid',
  middleName: null,
  surname: 'Lee',
  email: 'kid@example.com',
  phone: null,
  relation: 'child',
  memberSubType: 'mst-child',
  updatedAt: 't0',
  status: 'active',
};

test('the fields given that differ are changed, in FAMILY_FIELDS order, with updatedAt the time of the change', () => {
  const r = applyFamilyChanges(dependant, { phone: '+1', name: 'Junior', surname: 'Lee' }, 't1');
  expect(r.updatedFields).toEqual(['name', 'phone']);
  expect(r.after).toEqual({ ...dependant, name: 'Junior', phone: '+1', updatedAt: 't1' });
  expect(dependant.name).toBe('Kid');
});

test('undefined leaves a field as it is; null clears it', () => {
  const r = applyFamilyChanges(dependant, { email: null, relation: undefined }, 't1');
  expect(r.updatedFields).toEqual(['email']);
  expect(r.after).toMatchObject({ email: null, relation: 'child' });
});

test('nothing to change: the same entity, no updatedAt', () => {
  const r = applyFamilyChanges(dependant, { name: 'Kid', middleName: null }, 't1');
  expect(r).toEqual({ after: dependant, updatedFields: [] });
});

test('only the family fields: other keys of the changes are ignored', () => {
  const r = applyFamilyChanges(dependant, { status: 'inactive' } as never, 't1');
  expect(r.updatedFields).toEqual([]);
  expect(FAMILY_FIELDS).not.toContain('status');
});
