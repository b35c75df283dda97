"""Programul C++ al capitolului 09: formatul binar dintre Python și C++, standardul C++ ales după
torch-ul instalat, apoi drumul întreg pe procesor: un model exportat, compilat în avans cu
AOTInductor într-un pachet `.pt2`, încărcat de programul C++ (construit cu g++ pe antetele lui
torch) într-un proces nou, dă aceeași ieșire ca modelul în Python."""

import re
from pathlib import Path

import pytest
import torch
import torch.nn as nn

from curs_compilare.capitole import cap09_export as export09


def test_formatul_binar_dus_intors(tmp_path):
    for tensor in (torch.randn(3, 5), torch.arange(24, dtype=torch.float64).reshape(2, 3, 4), torch.randn(7)):
        export09.scrie_tensor(tmp_path / "t.bin", tensor)
        torch.testing.assert_close(export09.citeste_tensor(tmp_path / "t.bin"), tensor.float())
    jetoane = torch.randint(0, 50_000, (2, 9), dtype=torch.int32)
    export09.scrie_tensor(tmp_path / "j.bin", jetoane)
    citit = export09.citeste_tensor(tmp_path / "j.bin")
    assert citit.dtype == torch.int64 and torch.equal(citit, jetoane.long())
    (tmp_path / "cod.bin").write_bytes(b"\x01" + b"\x00" * 7 + b"\x07" + b"\x00" * 7 + b"\x01" + b"\x00" * 7)
    with pytest.raises(ValueError, match="codul de tip 7"):
        export09.citeste_tensor(tmp_path / "cod.bin")
    (tmp_path / "scurt.bin").write_bytes((tmp_path / "t.bin").read_bytes()[:-4])
    with pytest.raises(ValueError, match="octeți"):
        export09.citeste_tensor(tmp_path / "scurt.bin")


def test_standardul_cpp_e_al_torchului_instalat():
    an = int(re.search(r"C\+\+ Version:\s*(\d{4})", torch.__config__.show()).group(1))
    assert export09.standard_cpp() == ("c++20" if an >= 2020 else "c++17")
    comanda = export09.comanda_de_compilare(export09.SURSA_INCARCATOR, export09.SURSA_INCARCATOR.with_suffix(""), "g++")
    assert f"-std={export09.standard_cpp()}" in comanda and "-ltorch" in comanda
    assert export09.SURSA_INCARCATOR.is_file()


def test_fara_compilator_o_eroare_in_romana(tmp_path, monkeypatch):
    monkeypatch.setattr(export09, "compilator_cpp", lambda: None)
    with pytest.raises(export09.EroareCpp, match="compilator C\\+\\+"):
        export09.construieste_incarcatorul(tmp_path)


class _Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.a, self.b = nn.Linear(16, 32), nn.Linear(32, 4)

    def forward(self, x):
        return self.b(torch.relu(self.a(x)))


# --- ce refuză exportul ------------------------------------------------------------------------


class _Ramura(nn.Module):
    def forward(self, x):
        if x.sum() > 0:
            return x * 2
        return x - 1


class _RamuraCond(nn.Module):
    def forward(self, x):
        return torch.cond(x.sum() > 0, lambda t: t * 2, lambda t: t - 1, (x,))


class _Zlib(nn.Module):
    def forward(self, x):
        import zlib

        return x * (zlib.crc32(b"eticheta") % 3)


class _LotFixat(nn.Module):
    def forward(self, x):
        return x.reshape(4, -1)


def test_exportul_refuzat_pe_categorii_pe_versiunea_instalata():
    x = torch.randn(4, 8)
    for strict in (True, False):
        refuz = export09.incearca_exportul(_Ramura(), (x,), strict=strict)
        assert not refuz.reusit and refuz.categorie == "ramificare după date", refuz
        assert "torch.cond" in refuz.explicatie and refuz.original
    cu_cond = export09.incearca_exportul(_RamuraCond(), (x,))
    assert cu_cond.reusit
    torch.testing.assert_close(cu_cond.program.module()(x), _Ramura()(x))
    # Un apel într-o bibliotecă C: refuzat doar la exportul strict (măsurat pe 2.13.0 și 2.14.1).
    assert export09.incearca_exportul(_Zlib(), (x,), strict=True).categorie == "apel pe care Dynamo nu-l urmărește"
    assert export09.incearca_exportul(_Zlib(), (x,), strict=False).reusit
    lot = torch.export.Dim("lot", min=2, max=64)
    fixat = export09.incearca_exportul(_LotFixat(), (x,), dynamic_shapes={"x": {0: lot}})
    assert fixat.categorie == "dimensiune fixată de cod" and "Constraints violated" in fixat.original
    assert "Traceback" not in (fixat.explicatie + fixat.original)


def test_intervalul_declarat_al_unei_dimensiuni():
    """`Dim(min=2, max=64)`: un lot peste maxim e refuzat la rulare; unul sub minim (1) rulează
    (pe 2.13.0 și 2.14.1): minimul e o presupunere a exportului, nu o verificare la rulare."""
    lot = torch.export.Dim("lot", min=2, max=64)
    program = export09.incearca_exportul(_Model(), (torch.randn(4, 16),), dynamic_shapes={"x": {0: lot}}).program
    assert "VR[2, 64]" in str(program.range_constraints)
    modul = program.module()
    modul(torch.randn(64, 16))
    with pytest.raises(Exception, match="<= 64"):
        modul(torch.randn(65, 16))
    assert modul(torch.randn(1, 16)).shape == (1, 4)


# --- pachetul ReteaTransformer: C++, contractul formelor, porniri la rece ------------------------

from curs_compilare.modele import ConfiguratieTransformer, ReteaTransformer  # noqa: E402

_MIC = ConfiguratieTransformer(vocabular=64, dim_model=16, nr_capete=2, nr_straturi=1, lungime=8, marime_lot=4)


@pytest.fixture(scope="module")
def pachet_retea(tmp_path_factory):
    """Un ReteaTransformer minuscul, exportat cu lotul dinamic (2..16) și compilat cu AOTInductor."""
    dosar = tmp_path_factory.mktemp("retea")
    torch.manual_seed(0)
    model = ReteaTransformer(_MIC).eval()
    x = torch.randint(0, _MIC.vocabular, (_MIC.marime_lot, _MIC.lungime))
    lot = torch.export.Dim("lot", min=1, max=16)
    program = torch.export.export(model, (x,), dynamic_shapes=({0: lot},))
    return model, torch._inductor.aoti_compile_and_package(program, package_path=str(dosar / "retea.pt2")), dosar


def test_programul_cpp_care_esueaza_spune_de_ce_in_romana(tmp_path):
    """Drumul reușit al programului C++ (construit cu g++, pe jetoane int64, aceeași ieșire ca
    Python-ul) îl rulează notebook-ul capitolului, sub nbval; aici, un program care se oprește cu o
    eroare (prefăcut de un script) ajunge la cursant ca `EroareCpp`, cu ultimele lui rânduri."""
    program = tmp_path / "incarcator"
    program.write_text("#!/bin/sh\necho 'eroare: nu pot deschide pachetul' >&2\nexit 3\n")
    program.chmod(0o755)
    with pytest.raises(export09.EroareCpp, match="codul 3") as eroare:
        export09.ruleaza_incarcatorul(program, tmp_path / "nu_exista.pt2", torch.randint(0, 9, (2, 4)))
    assert "nu pot deschide pachetul" in str(eroare.value)
    assert export09.citeste_tensor(tmp_path / "intrare_cpp.bin").dtype == torch.int64


def test_contractul_formelor_cu_si_fara_verificarea_intrarilor(pachet_retea):
    """Măsurat pe 2.14.1: fără `AOTI_RUNTIME_CHECK_INPUTS`, un lot peste maximul declarat rulează
    fără niciun cuvânt; cu ea, e refuzat cu un mesaj, la fel ca o lungime alta decât cea exportată
    (statică) și lotul 1 (marginea de jos a exportului e 2). Câte un proces pentru toate formele."""
    _, pachet, _ = pachet_retea
    forme = [(17, _MIC.lungime), (4, 3), (1, _MIC.lungime)]
    fara = export09.ruleaza_pachetul_pe_forme(pachet, forme[:1], _MIC.vocabular)
    cu = export09.ruleaza_pachetul_pe_forme(pachet, forme, _MIC.vocabular, verifica_intrarile=True)
    assert fara[0].forma_iesirii == (17, _MIC.lungime, _MIC.vocabular), fara
    assert [c.forma for c in cu] == forme
    assert cu[0].eroare and "<= 16" in cu[0].eroare and "a refuzat-o" in cu[0].ce_a_facut
    assert cu[1].eroare and "expected: 8" in cu[1].eroare
    assert cu[2].eroare and ">= 2" in cu[2].eroare


def test_dupa_un_proces_oprit_formele_ramase_se_incearca_intr_unul_nou(monkeypatch, tmp_path):
    """Un proces care moare la a doua formă (ca pachetul fără verificare, pe o lungime greșită):
    forma aceea primește codul și rândul „what()”, iar a treia se încearcă într-un proces nou."""
    import json
    import subprocess

    apeluri = []

    def proces_fals(comanda, **optiuni):
        cerere = json.loads(comanda[-1])
        apeluri.append(cerere["forme"])
        if len(apeluri) == 1:
            return subprocess.CompletedProcess(comanda, -6, 'REZULTAT {"forma_iesirii": [65, 8, 64]}\n',
                                               "terminate called after throwing an instance of 'c10::Error'\n"
                                               "  what():  index out of bounds\nframe #0: ...\n")
        return subprocess.CompletedProcess(comanda, 0, 'REZULTAT {"eroare": "dim value is too small"}\n', "")

    monkeypatch.setattr(export09.subprocess, "run", proces_fals)
    rezultate = export09.ruleaza_pachetul_pe_forme(tmp_path / "p.pt2", [(65, 8), (4, 3), (1, 8)], 64)
    assert apeluri == [[[65, 8], [4, 3], [1, 8]], [[1, 8]]]
    assert rezultate[0].forma_iesirii == (65, 8, 64)
    assert rezultate[1].cod_iesire == -6 and "index out of bounds" in rezultate[1].ce_a_facut
    assert rezultate[2].eroare == "dim value is too small"


def test_un_proces_oprit_de_tot_e_spus_nu_aruncat():
    apel = export09.ApelInProcesNou(forma=(8, 32), cod_iesire=-6, ultimul_rand="what():  index out of bounds")
    assert "oprit de tot (cod -6)" in apel.ce_a_facut and "index out of bounds" in apel.ce_a_facut


def test_porniri_la_rece_ordinea_si_cache_urile(monkeypatch, tmp_path):
    """Orchestrarea: cache gol (care salvează artefactele), cache cald (același dosar), artefacte
    într-un cache gol, pachetul. Drumul real al proceselor JIT îl rulează notebook-ul capitolului
    (sub nbval); aici, procesele sunt prefăcute."""
    cereri = []

    def proces(configuratie, fel, **optiuni):
        cereri.append((fel, optiuni))
        if optiuni.get("salveaza"):
            Path(optiuni["salveaza"]).write_bytes(b"artefacte")
        return export09.PornireLaRece(primul_rezultat_s=1.0, al_doilea_s=0.1, pregatire_s=0.5, proces_s=2.0)

    monkeypatch.setattr(export09, "porneste_in_proces_nou", proces)
    porniri = export09.porniri_la_rece(_MIC, tmp_path / "p.pt2", tmp_path / "porniri", toate=True)
    are = hasattr(torch.compiler, "save_cache_artifacts")
    assert list(porniri) == ["JIT, cache gol", "JIT, cache cald", *(["JIT, artefacte"] if are else []), "pachet AOTI"]
    (gol, o1), (cald, o2) = cereri[0], cereri[1]
    assert gol == cald == "jit" and o1["dosar_cache"] == o2["dosar_cache"] and "incarca" not in o2
    if are:
        fel, o3 = cereri[2]
        assert o3["dosar_cache"] != o1["dosar_cache"] and Path(o3["incarca"]).read_bytes() == b"artefacte"
    assert cereri[-1] == ("aoti", {"pachet": tmp_path / "p.pt2"})
    # În profilul rapid: doar compilarea cu cache gol (fără artefacte salvate) și pachetul.
    cereri.clear()
    monkeypatch.setenv("CURS_PROFIL", "rapid")
    assert list(export09.porniri_la_rece(_MIC, tmp_path / "p.pt2", tmp_path / "rapid")) == ["JIT, cache gol", "pachet AOTI"]
    assert [f for f, _ in cereri] == ["jit", "aoti"] and cereri[0][1]["salveaza"] is None


def test_procesul_nou_cu_o_cerere_gresita_spune_de_ce(tmp_path):
    with pytest.raises(ValueError, match="jit"):
        export09.porneste_in_proces_nou(_MIC, "altceva")
    with pytest.raises(RuntimeError, match="Procesul nou a eșuat"):
        export09.porneste_in_proces_nou(_MIC, "aoti", pachet=tmp_path / "nu_exista.pt2")



def test_maximul_dimensiunii_din_programul_exportat():
    x = torch.randn(4, 16)
    static = torch.export.export(_Model(), (x,))
    assert export09.maximul_dimensiunii(static, 0) == 4 and export09.maximul_dimensiunii(static, 1) == 16
    declarat = torch.export.export(_Model(), (x,), dynamic_shapes={"x": {0: torch.export.Dim("lot", max=64)}})
    assert export09.maximul_dimensiunii(declarat, 0) == 64
    automat = torch.export.export(_Model(), (x,), dynamic_shapes={"x": {0: torch.export.Dim.AUTO}})
    assert export09.maximul_dimensiunii(automat, 0) is None


# ---------------------------------------------------------------------------------------------
# Încărcarea pachetului, întâi într-un proces nou: un pachet care oprește procesul (SIGSEGV, văzut
# cu torch 2.11 pe unele mașini) nu oprește kernel-ul notebook-ului, iar capitolul merge mai departe
# ---------------------------------------------------------------------------------------------


def test_incarcarea_intr_un_proces_nou_reusita_si_oprita(pachet_retea, monkeypatch):
    """Pe pachetul adevărat: încărcarea reușește și un apel dă forma așteptată; cu oprirea simulată
    (un SIGSEGV chiar în procesul nou), rezultatul spune în română semnalul, versiunile și că nu e
    greșeala cursantului, fără nicio excepție în procesul testului."""
    _, pachet, _ = pachet_retea
    x = torch.randint(0, _MIC.vocabular, (2, _MIC.lungime))
    monkeypatch.delenv(export09.VARIABILA_ESEC_SIMULAT, raising=False)
    bun = export09.incearca_incarcarea(pachet, x)
    assert bun.reusit and bun.forma_iesirii == (2, _MIC.lungime, _MIC.vocabular), bun
    assert "Îl poți încărca și în kernel-ul notebook-ului" in str(bun)
    monkeypatch.setenv(export09.VARIABILA_ESEC_SIMULAT, "1")
    oprit = export09.incearca_incarcarea(pachet, x)
    assert not oprit.reusit and oprit.cod_iesire == -11 and oprit.semnal == "SIGSEGV", oprit
    text = str(oprit)
    assert "SIGSEGV" in text and f"torch {torch.__version__}" in text and "Nu e o greșeală a ta" in text
    assert "kernel-ul ar fi murit" in text and "simulată" in text


def test_cpp_fata_de_incarcarea_din_python(capsys):
    """Secțiunea 7: când încărcarea din Python a oprit procesul, iar programul C++ a mers, capitolul spune că
    oprirea e în drumul Python; o oprire simulată nu se compară; o încărcare reușită nu adaugă nimic."""
    proba = export09.IncarcareInProcesNou(reusit=False, versiuni="torch x", cod_iesire=-11)
    export09.compara_cu_incarcarea_din_python(proba)
    assert "drumul de încărcare al lui Python" in capsys.readouterr().out
    export09.compara_cu_incarcarea_din_python(export09.IncarcareInProcesNou(reusit=False, versiuni="x", simulat=True))
    assert "simulată" in capsys.readouterr().out
    export09.compara_cu_incarcarea_din_python(export09.IncarcareInProcesNou(reusit=True, versiuni="x"))
    export09.compara_cu_incarcarea_din_python(None)
    assert capsys.readouterr().out == ""


def _celule(text_inceput: str, *alte: str) -> list[str]:
    """Sursele celulelor de cod din notebook-ul capitolului care încep cu textele date, în ordine."""
    import nbformat

    nb = nbformat.read(Path(__file__).resolve().parents[1] / "notebooks" / "09_export_aotinductor.ipynb", as_version=4)
    surse = [c.source for c in nb.cells if c.cell_type == "code"]
    return [next(s for s in surse if s.lstrip().startswith(t)) for t in (text_inceput, *alte)]


def test_capitolul_merge_mai_departe_cand_incarcarea_opreste_procesul(pachet_retea, monkeypatch, tmp_path, capsys):
    """Celulele capitolului de după compilarea pachetului, rulate chiar din notebook, cu oprirea
    simulată: nimic nu încarcă pachetul în procesul testului (kernel-ul ar fi murit), contractul
    formelor și pornirea pachetului lipsesc cu o explicație, regimul staționar compară doar ce
    rulează, iar programul C++ care cade și el e spus, nu aruncat. Pornirile JIT sunt prefăcute."""
    import matplotlib

    matplotlib.use("Agg")
    from curs_compilare import cifre, masurare

    model, pachet, _ = pachet_retea
    monkeypatch.setenv(export09.VARIABILA_ESEC_SIMULAT, "1")
    monkeypatch.setattr(torch._inductor, "aoti_load_package",
                        lambda *a, **k: pytest.fail("pachetul s-a încărcat în procesul notebook-ului"))
    monkeypatch.setattr(export09, "porneste_in_proces_nou", lambda configuratie, fel, **o: (
        pytest.fail("pornirea pachetului a rulat deși încărcarea oprește procesul") if fel == "aoti" else
        export09.PornireLaRece(primul_rezultat_s=1.0, al_doilea_s=0.1, pregatire_s=0.5, proces_s=2.0)))
    monkeypatch.setattr(masurare, "compara", lambda variante, *a, **k: _ComparatiePrefacuta(variante))
    monkeypatch.setattr(torch, "compile", lambda functie, **optiuni: functie)  # fără compilări: altceva se testează aici

    def cpp_cazut(*a, **k):
        raise export09.EroareCpp("Programul C++ s-a oprit cu codul -11:\n    (simulat)")

    monkeypatch.setattr(export09, "construieste_incarcatorul", cpp_cazut)
    torch.manual_seed(0)
    spatiu = {"export09": export09, "torch": torch, "time": __import__("time"), "cifre": cifre, "masurare": masurare,
              "ReteaTransformer": ReteaTransformer, "CONFIGURATIE": _MIC, "DISPOZITIV": "cpu", "DOSAR": tmp_path,
              "model": model, "pachet": pachet, "x": torch.randint(0, _MIC.vocabular, (_MIC.marime_lot, _MIC.lungime))}
    for sursa in _celule("proba = export09.incearca_incarcarea", "incarcat = None", "contract = export09.arata_contractul",
                         "porniri = export09.porniri_la_rece", "with torch.no_grad():\n    compilat",
                         "try:\n    executabil = export09.construieste_incarcatorul"):
        exec(compile(sursa, "<celula>", "exec"), spatiu)
    tiparit = capsys.readouterr().out
    assert "SIGSEGV" in tiparit and spatiu["incarcat"] is None and spatiu["contract"] == []
    assert "pachet AOTI" not in spatiu["porniri"] and "Pachetul lipsește din tabel" in tiparit
    assert "Pachetul AOTI lipsește din comparație" in tiparit
    assert "Programul C++ n-a putut rula pe mașina aceasta" in tiparit


class _ComparatiePrefacuta:
    """O comparație cu timpi ficși, pentru celula regimului staționar (măsurarea adevărată o rulează
    notebook-ul, sub nbval)."""

    def __init__(self, variante):
        self.nume = list(variante)

    def items(self):
        return [(n, masurare_prefacuta(i)) for i, n in enumerate(self.nume)]

    def __str__(self):
        return "\n".join(self.nume)


def masurare_prefacuta(i):
    from curs_compilare.masurare import Masuratoare

    t = 1e-3 * (i + 1)
    return Masuratoare(mediana_s=t, cuantila20_s=t, cuantila80_s=t, numar_rulari=5, unealta="prefăcută")
