// SQL of warranties and the enterprise warranty template. Setting a warranty writes the
// certificate's `warranty` column, its provenance entry, certificate.updated and the queued
// ERC-4906 metadata update in one transaction, under a row lock, so concurrent changes each see the previous state.
import { HallmarkError, isId, newId, notFound, transaction, type Pool } from '@hallmark/kit';
import type { Scope } from '../domain/certificate.js';
import { recordCertificateUpdated } from '../certificate-events-store.js';
import { queueMetadataUpdate } from '../metadata-updates/store.js';
import type { Warranty } from '../domain/warranty.js';
import type { CertificateRead, CertificatesStore } from '../store.js';
import {
  sameWarranty,
  WARRANTY_TEMPLATE_FIELDS,
  WARRANTY_TEMPLATE_NAME,
  type WarrantyTemplateField,
} from './domain.js';

export interface WarrantyTemplateRecord {
  id: string;
  name: string;
  fields: WarrantyTemplateField[];
  createdAt: Date;
  created: boolean;
}

interface WarrantyTemplateRow {
  id: string;
  name: string;
  fields: WarrantyTemplateField[];
  created_at: Date;
}

export class WarrantyStore {
  constructor(
    private readonly pool: Pool,
    private readonly certificates: CertificatesStore,
  ) {}

  /**
   * Sets the warranty of a certificate of the scope's tenant. Adds `warranty_set` (first time)
   * or `warranty_changed`; the same warranty again changes nothing (changed = false).
   */
  async setWarranty(
    scope: Scope,
    certificateId: string,
    warranty: Warranty,
  ): Promise<{ read: CertificateRead; changed: boolean }> {
    if (!isId('certificate', certificateId)) throw notFound('certificate', certificateId);
    const changed = await transaction(this.pool, async (tx) => {
      const { rows } = await tx.query<{ status: string; warranty: Warranty | null }>(
        `SELECT status, warranty FROM certificates
         WHERE id = $1 AND enterprise_id = $2 AND livemode = $3 FOR UPDATE`,
        [certificateId, scope.enterpriseId, scope.livemode],
      );
      const row = rows[0];
      if (!row) throw notFound('certificate', certificateId);
      if (row.status === 'burned') {
        throw new HallmarkError('validation_failed', {
          param: 'certificate_id',
          message: 'The certificate was burned; its warranty can no longer change.',
        });
      }
      if (sameWarranty(row.warranty, warranty)) return false;
      await tx.query(`UPDATE certificates SET warranty = $2, updated_at = now() WHERE id = $1`, [
        certificateId,
        JSON.stringify(warranty),
      ]);
      const kind = row.warranty ? 'warranty_changed' : 'warranty_set';
      await tx.query(`INSERT INTO provenance (certificate_id, kind, actor) VALUES ($1, $2, $3)`, [
        certificateId,
        kind,
        scope.actorId || null,
      ]);
      await recordCertificateUpdated(tx, certificateId, kind);
      // the token metadata's warranty attribute changed: ERC-4906 MetadataUpdate (the relayer sends it)
      await queueMetadataUpdate(tx, { certificateId }, kind);
      return true;
    });
    return { read: await this.certificates.get(scope, certificateId), changed };
  }

  /** The enterprise's warranty template, created with its 9 fields on the first call. */
  async initWarrantyTemplate(scope: Scope): Promise<WarrantyTemplateRecord> {
    const { rows } = await this.pool.query<WarrantyTemplateRow & { inserted: boolean }>(
      `WITH ins AS (
         INSERT INTO warranty_templates (id, enterprise_id, name, fields) VALUES ($1, $2, $3, $4)
         ON CONFLICT (enterprise_id) DO NOTHING
         RETURNING id, name, fields, created_at, true AS inserted)
       SELECT * FROM ins
       UNION ALL
       SELECT id, name, fields, created_at, false FROM warranty_templates
       WHERE enterprise_id = $2 AND NOT EXISTS (SELECT 1 FROM ins)`,
      [
        newId('template'),
        scope.enterpriseId,
        WARRANTY_TEMPLATE_NAME,
        JSON.stringify(WARRANTY_TEMPLATE_FIELDS),
      ],
    );
    const row = rows[0];
    if (row) {
      return {
        id: row.id,
        name: row.name,
        fields: row.fields,
        createdAt: row.created_at,
        created: row.inserted,
      };
    }
    // A concurrent first call committed after this statement's snapshot: read its row.
    const { rows: again } = await this.pool.query<WarrantyTemplateRow>(
      'SELECT id, name, fields, created_at FROM warranty_templates WHERE enterprise_id = $1',
      [scope.enterpriseId],
    );
    const found = again[0];
    if (!found) throw new Error('warranty template neither inserted nor found');
    return {
      id: found.id,
      name: found.name,
      fields: found.fields,
      createdAt: found.created_at,
      created: false,
    };
  }

  async getWarrantyTemplate(scope: Scope, id: string): Promise<WarrantyTemplateRecord> {
    if (!isId('template', id)) throw notFound('template', id);
    const { rows } = await this.pool.query<WarrantyTemplateRow>(
      'SELECT id, name, fields, created_at FROM warranty_templates WHERE id = $1 AND enterprise_id = $2',
      [id, scope.enterpriseId],
    );
    const row = rows[0];
    if (!row) throw notFound('template', id);
    return { id: row.id, name: row.name, fields: row.fields, createdAt: row.created_at, created: false };
  }
}
