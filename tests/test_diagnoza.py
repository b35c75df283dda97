"""Uneltele de diagnoză ale capitolului 07 (`curs_compilare.capitole.cap07_diagnoza`): jurnalul TORCH_TRACE și
raportul tlparse, dump-ul depyf, timpii compilării, urma profilerului cu regiunile compilate,
compararea etapelor compilatorului și harta „simptom → prima comandă”."""

import json
import struct

import matplotlib

matplotlib.use("Agg")

import pytest
import torch

from curs_compilare.capitole import cap07_diagnoza as diagnoza


def _functie(x, n):
    return torch.sin(x) * n + 1


def _cu_ramificare(x):
    y = torch.cos(x)
    if y.sum() > 0:
        y = y + 1
    return y * 2


# --- TORCH_TRACE și tlparse ------------------------------------------------------------------


def test_tlparse_se_gaseste_langa_interpretor():
    cale = diagnoza.cale_tlparse()
    assert cale is not None, "tlparse lipsește din mediu (pip install tlparse)"


def test_urma_torch_trace_si_raportul_tlparse(tmp_path):
    x = torch.randn(16)
    compilat = torch.compile(_functie, backend="eager")
    jurnal = diagnoza.urma_torch_trace(lambda: [compilat(x, n) for n in (2, 3)], tmp_path / "urma")
    assert jurnal is not None and jurnal.suffix == ".log" and jurnal.stat().st_size > 0
    raport = diagnoza.ruleaza_tlparse(jurnal, tmp_path / "raport")
    assert raport.exista, raport.mesaj
    assert raport.index == tmp_path / "raport" / "index.html"
    # prima compilare și recompilarea pentru n = 3 (garda n == 2)
    assert "[0/0]" in raport.compilari() and "[0/1]" in raport.compilari()
    assert raport.fisiere("dynamo_output_graph")
    assert any("n == 2" in m for m in raport.motive_recompilare())
    assert any("Stack" in l for l in raport.linii())


def test_urma_torch_trace_nu_lasa_manipulatorul_in_urma(tmp_path):
    from torch._logging import _internal

    inainte = list(_internal.trace_log.handlers)
    diagnoza.urma_torch_trace(lambda: torch.compile(_functie, backend="eager")(torch.randn(4), 2), tmp_path)
    assert list(_internal.trace_log.handlers) == inainte


def test_urma_fara_compilare_si_tlparse_fara_jurnal(tmp_path):
    assert diagnoza.urma_torch_trace(lambda: None, tmp_path / "gol") is None
    raport = diagnoza.ruleaza_tlparse(None, tmp_path / "raport")
    assert not raport.exista and "lipsește" in raport.mesaj


def test_tlparse_lipsa_da_un_mesaj_in_romana(tmp_path, monkeypatch):
    monkeypatch.setattr(diagnoza, "cale_tlparse", lambda: None)
    raport = diagnoza.ruleaza_tlparse(tmp_path / "oricare.log", tmp_path / "raport")
    assert not raport.exista and "pip install tlparse" in raport.mesaj
    assert raport.linii() == [] and raport.compilari() == []


# --- depyf -----------------------------------------------------------------------------------


def test_dump_depyf_scrie_codul_transformat_graful_si_garzile(tmp_path):
    x = torch.randn(8)
    dump = diagnoza.dump_depyf(lambda: torch.compile(_functie, backend="eager")(x, 2), tmp_path / "depyf")
    nume = [p.name for p in dump.fisiere()]
    assert any(n.startswith("full_code_for__functie") for n in nume), nume
    assert any(n.startswith("__transformed_code_") for n in nume), nume
    assert "L['n'] == 2" in dump.garzi()
    assert dump.functie_din_cod("__transformed_code_").startswith("def __transformed_code_")
    assert "torch.sin" in dump.graf()


def test_dump_depyf_fara_pachet(tmp_path, monkeypatch):
    import builtins

    import_original = builtins.__import__

    def import_fara_depyf(nume, *argumente, **numite):
        if nume == "depyf":
            raise ImportError("fără depyf")
        return import_original(nume, *argumente, **numite)

    monkeypatch.setattr(builtins, "__import__", import_fara_depyf)
    dump = diagnoza.dump_depyf(lambda: None, tmp_path / "depyf")
    assert "pip install depyf" in dump.mesaj and dump.fisiere() == [] and dump.garzi() == []


# --- compile_times -----------------------------------------------------------------------------


def test_timpi_compilare_tabel_in_formatul_cursului():
    torch._dynamo.reset()
    torch.compile(_functie, backend="eager")(torch.randn(4), 2)
    randuri = diagnoza.timpi_compilare(maxim=5)
    assert randuri and len(randuri) <= 5
    assert [r.total_s for r in randuri] == sorted((r.total_s for r in randuri), reverse=True)
    tabel = diagnoza.tabel_timpi_compilare(randuri)
    assert tabel.splitlines()[0].split() == ["etapa", "apeluri", "total"]
    from curs_compilare import cifre

    assert cifre.probleme_de_format(tabel) == []


# --- urma profilerului --------------------------------------------------------------------------


def test_urma_profiler_si_regiunile_compilate(tmp_path):
    torch._dynamo.reset()
    compilat = torch.compile(_cu_ramificare, backend="eager")
    x = torch.randn(32)
    compilat(x)
    urma = diagnoza.urma_profiler(lambda: compilat(x), tmp_path / "urma.json", pasi=2)
    assert urma.exists()
    assert "traceEvents" in json.loads(urma.read_text())
    regiuni = diagnoza.regiuni_compilate(urma)
    # două grafuri (întreruperea de la if), la fiecare dintre cele două apeluri
    assert len(regiuni) == 4
    assert {r.compilare for r in regiuni} == {"0/0", "1/0"}
    assert all(r.durata_us >= 0 for r in regiuni)
    assert [r.inceput_us for r in regiuni] == sorted(r.inceput_us for r in regiuni)

    eager = diagnoza.urma_profiler(lambda: _cu_ramificare(x), tmp_path / "eager.json")
    assert diagnoza.regiuni_compilate(eager) == []


# --- etapele compilatorului ----------------------------------------------------------------------


def test_compara_etape_gaseste_generatorul_aleator_al_lui_inductor():
    def cu_zgomot(x):
        return torch.relu(x) + torch.randn_like(x)

    etape = diagnoza.compara_etape(cu_zgomot, (torch.randn(256),), inainte_de_fiecare=lambda: torch.manual_seed(0))
    assert [e.etapa for e in etape] == list(diagnoza.ETAPE_BACKEND)
    assert [e.la_fel for e in etape] == [True, True, True, False]
    assert etape[0].diferenta_maxima == 0.0 and etape[-1].diferenta_maxima > 0.1
    with torch._inductor.config.patch(fallback_random=True):
        (inductor,) = diagnoza.compara_etape(
            cu_zgomot, (torch.randn(256),), etape=("inductor",), inainte_de_fiecare=lambda: torch.manual_seed(0)
        )
    assert inductor.la_fel


def test_compara_etape_cu_backend_propriu_care_strica():
    def strica(gm, exemple):
        return lambda *argumente: [t + 1 for t in gm(*argumente)]

    etape = diagnoza.compara_etape(lambda x: x * 2, (torch.ones(4),), etape=("eager", strica))
    assert [e.la_fel for e in etape] == [True, False]
    assert etape[1].diferenta_maxima == pytest.approx(1.0)


# --- harta -----------------------------------------------------------------------------------


def _dimensiuni_png(cale):
    with open(cale, "rb") as f:
        antet = f.read(24)
    assert antet[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", antet[16:24])


def test_harta_exista_si_are_textele_din_modul():
    cale = diagnoza.cale_harta()
    assert cale.exists(), "lipsește assets/diagnoza/harta_diagnozei.png: rulează make ilustratii"
    latime, inaltime = _dimensiuni_png(cale)
    assert latime > inaltime > 600  # o pagină culcată, lizibilă
    figura = diagnoza.figura_harta()
    try:
        scrise = [" ".join(t.get_text().split()) for t in figura.axes[0].texts]  # simptomele sunt rupte pe rânduri
    finally:
        import matplotlib.pyplot as plt

        plt.close(figura)
    for text in diagnoza.texte_harta():
        assert " ".join(text.split()) in scrise, text
    # comenzile exacte ale capitolului
    comenzi = " ".join(p.comanda for p in diagnoza.HARTA_DIAGNOZEI)
    for comanda in ("recompiles_verbose", "graph_breaks", "export_chrome_trace", "TORCH_TRACE", "tlparse",
                    "aot_eager", "depyf.prepare_debug", "custom_op", "triton_op"):
        assert comanda in comenzi, comanda


def test_harta_redesenata_are_aceleasi_dimensiuni(tmp_path):
    noua = diagnoza.deseneaza_harta(tmp_path / "harta.png")
    assert _dimensiuni_png(noua) == _dimensiuni_png(diagnoza.cale_harta())


def test_harta_in_romana_fara_sedile():
    for text in diagnoza.texte_harta():
        assert not any(c in text for c in "\u015f\u015e\u0163\u0162"), text
    assert any("ț" in t or "ș" in t for t in diagnoza.texte_harta())


def test_makefile_redeseneaza_harta():
    from pathlib import Path

    makefile = (Path(__file__).resolve().parent.parent / "Makefile").read_text(encoding="utf-8")
    reteta = makefile.split("\nilustratii:", 1)[1].split("\n\n", 1)[0]
    assert "-m curs_compilare.capitole.cap07_diagnoza" in reteta


def test_arata_harta_nu_intoarce_nimic(monkeypatch):
    import IPython.display

    monkeypatch.setattr(IPython.display, "display", lambda *a, **k: None)
    assert diagnoza.arata_harta() is None


# --- gărzile, avertismentele, wrap_triton pe interpretor ---------------------------------------


def _scor(x, w, pondere):
    y = torch.tanh(x @ w) * pondere
    if y.mean() > 0:
        y = y - y.mean()
    return torch.softmax(y, dim=-1)


def test_cost_garzi_masoara_intrarea_care_s_ar_potrivi():
    """Cifra „Guard eval latency” din jurnal e o singură evaluare la rece (n_iters=1, după golirea
    cache-ului), la compilare; `cost_garzi` măsoară evaluarea la cald, cu `compara`."""
    import inspect

    import torch._dynamo.guards as garzi

    assert "profile_guard_manager(\n                self.guard_manager.root, output_graph.local_scope, 1" in inspect.getsource(garzi)
    torch._dynamo.reset()
    compilat = torch.compile(_scor, backend="eager")
    x, w = torch.randn(8, 32), torch.randn(32, 32) / 6
    for pondere in (1, 2, 3):
        compilat(x, w, pondere)
    cost = diagnoza.cost_garzi(_scor, {"x": x, "w": w, "pondere": 3}, timp_minim_s=0.02)
    assert cost is not None and cost.intrari == 2 and cost.compilare == "0/1"
    assert cost.masuratoare.mediana_s > cost.gol.mediana_s > 0 and 0 < cost.pe_apel_s < 1e-3
    assert diagnoza.cost_garzi(_scor, {"x": x, "w": w.double(), "pondere": 3}) is None  # nicio intrare nu se potrivește
    torch._dynamo.reset()


def test_avertismentele_lui_dynamo_in_romana():
    import zlib

    def ajutor(x):
        return torch.nn.functional.gelu(x) * (2 + zlib.crc32(b"a") % 1)

    torch._dynamo.reset()
    with diagnoza.avertismente_dynamo() as avertismente:
        torch.compile(lambda t: ajutor(t).cos(), backend="eager")(torch.randn(8))
    torch._dynamo.reset()
    romane = [a.in_romana for a in avertismente if a.in_romana]
    assert any("`zlib.crc32`" in r and "custom_op" in r and "allow_in_graph" in r for r in romane), avertismente
    assert all("\u015f" not in r and "\u0163" not in r for r in romane)


def test_wrap_triton_pe_interpretor():
    """Pe un procesor (interpretorul Triton), `torch.library.wrap_triton` trebuie să întoarcă kernel-ul
    interpretat neschimbat, ca în torch 2.14 (torch 2.11 îl refuză; `wrap_triton_pe_interpretor` aduce
    comportamentul nou). Pe GPU nu schimbă nimic."""
    triton = pytest.importorskip("triton")
    import curs_compilare  # noqa: F401
    from curs_compilare.exercitii import cap07

    instalata = diagnoza.wrap_triton_pe_interpretor()
    if torch.cuda.is_available():
        assert instalata is False
        return
    assert diagnoza.wrap_triton_pe_interpretor() == instalata  # a doua oară, la fel
    assert torch.library.wrap_triton(cap07.kernel_exercitiul_2) is cap07.kernel_exercitiul_2
    with pytest.raises(RuntimeError):
        torch.library.wrap_triton(lambda x: x)  # celelalte obiecte trec mai departe, la fel de refuzate
