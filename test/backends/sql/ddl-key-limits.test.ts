/**
 * createSchemaSql keeps every primary key within the engine's index key limit: a link table (or a
 * contained set) whose key holds several strings without MaxLength shares InnoDB's 3 072 bytes
 * among them (four VARCHAR(255) in utf8mb4 are 4 080 bytes, which MariaDB refuses to create).
 * Found by the campaign over generated models (a link table between two types with compound string keys).
 */
import { describe, expect, it } from 'vitest';
import { createSchemaSql, modelFromCsdlXml } from '../../../src/index.js';
import { mysqlServer } from '../../fixtures/sql-engines.js';

// CSDL XML, for the MaxLength facet.
const model = modelFromCsdlXml(`<edmx:Edmx Version="4.0" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx">
  <edmx:DataServices>
    <Schema Namespace="Keys" xmlns="http://docs.oasis-open.org/odata/ns/edm">
      <EntityType Name="Score">
        <Key><PropertyRef Name="born"/><PropertyRef Name="code"/></Key>
        <Property Name="born" Type="Edm.String" Nullable="false"/><Property Name="code" Type="Edm.String" Nullable="false"/>
        <NavigationProperty Name="labels" Type="Collection(Keys.Label)"/>
      </EntityType>
      <EntityType Name="Label">
        <Key><PropertyRef Name="born"/><PropertyRef Name="code"/></Key>
        <Property Name="born" Type="Edm.String" Nullable="false"/><Property Name="code" Type="Edm.String" Nullable="false"/>
      </EntityType>
      <EntityType Name="Short">
        <Key><PropertyRef Name="a"/><PropertyRef Name="b"/></Key>
        <Property Name="a" Type="Edm.String" Nullable="false" MaxLength="10"/><Property Name="b" Type="Edm.String" Nullable="false"/>
      </EntityType>
      <EntityContainer Name="Container">
        <EntitySet Name="scores" EntityType="Keys.Score"/><EntitySet Name="labels" EntityType="Keys.Label"/><EntitySet Name="shorts" EntityType="Keys.Short"/>
      </EntityContainer>
    </Schema>
  </edmx:DataServices>
</edmx:Edmx>`);

const url = process.env.ODATA_TEST_MYSQL_URL;

describe('primary keys within the index key limit', () => {
  const mysql = createSchemaSql(model, 'mysql');
  const link = mysql.find((sql) => sql.includes('Score_labels')) as string;

  it('four strings without MaxLength share 768 characters on MySQL/MariaDB; one key of two, 255 each', () => {
    expect(link.match(/VARCHAR\(192\)/g)).toHaveLength(4);
    expect(mysql.find((sql) => sql.startsWith('CREATE TABLE `scores`'))).toContain('`born` VARCHAR(255)');
    // A bounded string leaves the rest to the other: (3072 - 40) / 4 = 758 characters, capped at 255.
    expect(mysql.find((sql) => sql.startsWith('CREATE TABLE `shorts`'))).toMatch(/`a` VARCHAR\(10\).*`b` VARCHAR\(255\)/);
  });

  it('SQL Server: 900 bytes, NVARCHAR', () => {
    const mssql = createSchemaSql(model, 'mssql').find((sql) => sql.includes('Score_labels')) as string;
    expect(mssql.match(/NVARCHAR\(112\)/g)).toHaveLength(4);
  });

  it.skipIf(url === undefined && process.env.CI !== 'true')('the schema is created on the live MariaDB', async () => {
    const engine = await mysqlServer(url as string);
    try {
      for (const statement of mysql) await engine.exec(statement);
      await engine.exec("INSERT INTO `Score_labels` VALUES ('a', 'b', 'c', 'd')");
      const [row] = await engine.query('SELECT COUNT(*) AS n FROM `Score_labels`', []);
      expect(Number(row?.n)).toBe(1);
    } finally {
      await engine.close();
    }
  });
});
