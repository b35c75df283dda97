"""Uneltele de afișare ale capitolului 06 (`curs_compilare.capitole.cap06_modelul_intreg`): tabelele,
graficele și cifrele pe care notebook-ul le înregistrează pentru raport. Pe date sintetice, fără
nicio compilare; ramurile de GPU (care nu rulează pe o mașină fără GPU) se verifică și ele: cheile,
unitățile și descrierile cifrelor trebuie să rămână cele din raportul de referință."""

import math
import re
import types

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import pytest
import torch

from curs_compilare import cifre
from curs_compilare.capitole import cap06_modelul_intreg as antrenare
from curs_compilare.capitole.cap05_cache import PrimulApel
from curs_compilare.masurare import Comparatie, Masuratoare
from curs_compilare.masurare_compilare import PornireCompilata
from curs_compilare.modele import ConfiguratieTransformer, ReteaTransformer

MIC = ConfiguratieTransformer(vocabular=64, dim_model=32, nr_capete=2, nr_straturi=1, lungime=16, marime_lot=8)



def _dupa_cheie(cifre_notate: list[dict]) -> dict[str, dict]:
    """Cifrele notate, după cheie."""
    return {c["cheie"]: c for c in cifre_notate}

def _masuratoare(ms: float, runde=(1.0, 1.0, 1.0, 1.0, 1.0)) -> Masuratoare:
    s = ms / 1e3
    return Masuratoare(mediana_s=s, cuantila20_s=0.9 * s, cuantila80_s=1.1 * s, numar_rulari=20, unealta="test",
                       mediane_runde=tuple(s * r for r in runde))


def _comparatie(**ms) -> Comparatie:
    return Comparatie({nume.replace("_", " "): _masuratoare(v) for nume, v in ms.items()}, ceas="perete",
                      motiv_ceas="Ceasul: de perete.")


def _comparatie_numita(valori: dict) -> Comparatie:
    return Comparatie({nume: _masuratoare(v) for nume, v in valori.items()}, ceas="perete", motiv_ceas="Ceasul: de perete.")


def _moduri(parte="antrenare", pe_gpu=False, moduri=("eager", "default")) -> "antrenare.ComparatieModuri":
    pe_pas = _comparatie_numita({m: 10.0 / (i + 1) for i, m in enumerate(moduri)})
    pornire = {m: PornireCompilata((2.0 + i, 0.01, 0.005)) for i, m in enumerate(moduri) if m != "eager"}
    prima_s = {m: pornire[m].prima_s(pe_pas[m].mediana_s) for m in pornire}
    prima_s["eager"] = pe_pas["eager"].mediana_s
    memorie = {m: (100.0 - 10 * i if pe_gpu else None) for i, m in enumerate(moduri)}
    grafuri_cuda = {m: (50.0 if pe_gpu and m in antrenare.MODURI_CU_GRAFURI_CUDA else None) for m in moduri}
    return antrenare.ComparatieModuri(parte=parte, pe_pas=pe_pas, prima_s=prima_s, memorie_pas_mib=memorie,
                                      grafuri_cuda_mib=grafuri_cuda, pornire=pornire, functii={m: object() for m in moduri},
                                      ordine_compilare=tuple(m for m in moduri if m != "eager"))


@pytest.fixture
def fara_referinta(monkeypatch):
    """`afiseaza_referinta` prinsă: prefixele cerute, fără să citească fișierul de referință."""
    cerute = []
    monkeypatch.setattr(cifre, "afiseaza_referinta", lambda prefix="": cerute.append(prefix) or {})
    return cerute


# --- secțiunea 1: AdamW și antrenarea -------------------------------------------------------------


def test_tabelul_pasilor_adamw():
    model = ReteaTransformer(MIC)
    forme = {"rata în tensor, capturable=False": torch.optim.AdamW(model.parameters(), lr=torch.tensor(1e-3)),
             "fused=True, rata float": antrenare.optimizare_eager(model, 1e-3)[0]}
    pasi = _comparatie_numita({"rata în tensor, capturable=False": 2.0, "fused=True, rata float": 0.5})
    text = antrenare.tabel_pasi_adamw(forme, pasi, model)
    randuri = text.splitlines()
    assert randuri[0].startswith("Pasul AdamW eager pe ") and "tensori-parametri" in randuri[0]
    assert len(randuri) == 3 and "drumul: buclă pe tensori" in randuri[1] and "drumul: fused" in randuri[2]
    assert "2 ms" in randuri[1] and "500 µs" in randuri[2]


def test_cifrele_pasilor_adamw_pe_gpu_si_referinta_pe_procesor(cifre_notate, fara_referinta, capsys):
    pasi = _comparatie_numita({nume: 1.0 + i for i, nume in enumerate(antrenare.CHEI_FORME_ADAMW)})
    antrenare.inregistreaza_pasii_adamw(pasi, pe_gpu=True)
    cifrele = _dupa_cheie(cifre_notate())
    assert set(cifrele) == {"06.pas_adamw_eager_tensor_ms", "06.pas_adamw_eager_foreach_ms", "06.pas_adamw_eager_fused_ms"}
    assert cifrele["06.pas_adamw_eager_foreach_ms"]["valoare"] == pytest.approx(2.0)
    assert cifrele["06.pas_adamw_eager_fused_ms"]["descriere"] == "pasul AdamW eager, fused=True, rata float"
    assert all(c["unitate"] == "ms" for c in cifrele.values()) and not fara_referinta
    antrenare.inregistreaza_pasii_adamw(pasi, pe_gpu=False)
    assert len(_dupa_cheie(cifre_notate())) == 3 and fara_referinta == ["06.pas_adamw"] and "Referința, pe GPU:" in capsys.readouterr().out


def test_descrierea_tabelul_si_graficul_antrenarii():
    model = ReteaTransformer(MIC)
    text = antrenare.descrie_antrenarea(MIC, model, 200, "float32")
    assert text.startswith("Modelul: 1 strat de lățime 32, vocabular de 64 de jetoane, ")
    assert "Loturile: 8 × 16 jetoane, 200 de pași; precizia: float32; pierderea de pornire așteptată: ln(64) = 4,16" in text
    rulari = {"eager": antrenare.Rulare("eager", [4.0] * 5 + [1.0] * 10, 0.01, 0.14),
              "compilat": antrenare.Rulare("compilat", [4.0] * 5 + [2.0] * 10, 3.0, 0.28)}
    tabel = antrenare.tabel_rulari(rulari).splitlines()
    assert "pierderea: început" in tabel[0] and len(tabel) == 3
    assert tabel[1].split()[:3] == ["eager", "4,00", "1,00"] and tabel[2].split()[:3] == ["compilat", "4,00", "2,00"]
    assert "3 s" in tabel[2] and "20 ms" in tabel[2]  # primul pas; apoi 0,28 s / 14 pași
    fig = antrenare.grafic_pierderi(rulari, MIC.vocabular, "float32")
    ax = fig.axes[0]
    assert [l.get_label() for l in ax.get_lines()][:2] == ["eager", "compilat"]
    assert ax.get_lines()[0].get_xdata()[-1] == 15 and ax.get_lines()[2].get_ydata()[0] == pytest.approx(math.log(64))
    plt.close(fig)


# --- secțiunea 3: modurile ------------------------------------------------------------------------


def test_kernelurile_inferentei_doar_pe_gpu(monkeypatch, cifre_notate):
    c = _moduri("inferență")
    assert antrenare.kerneluri_la_inferenta(c, torch.zeros(1), pe_gpu=False) == {} and _dupa_cheie(cifre_notate()) == {}
    numarate = {id(c.functii["eager"]): 120, id(c.functii["default"]): 30}
    monkeypatch.setattr(antrenare, "numara_kerneluri", lambda f, x: types.SimpleNamespace(numar=numarate[id(f)]))
    assert antrenare.kerneluri_la_inferenta(c, torch.zeros(1), pe_gpu=True) == {"eager": 120, "default": 30}
    cifrele = _dupa_cheie(cifre_notate())
    assert cifrele["06.kerneluri_eager"]["valoare"] == 120 and cifrele["06.kerneluri_compilat"]["valoare"] == 30
    assert cifrele["06.kerneluri_compilat"]["descriere"] == "inferență, modul implicit"
    assert {c["unitate"] for c in cifrele.values()} == {"kernel-uri"}


def test_tabelul_modurilor():
    c = _moduri("antrenare", pe_gpu=True, moduri=("eager", "default", "reduce-overhead"))
    randuri = antrenare.tabel_moduri(c).splitlines()
    assert randuri[0] == "ANTRENARE: modurile compilate în ordinea default, reduce-overhead. Ceasul: de perete."
    assert randuri[1].split()[:3] == ["mod", "pe", "pas"]
    assert randuri[2].startswith("eager ") and randuri[4].startswith("reduce-overhead* ")
    assert "100 MiB" in randuri[2] and "50 MiB" in randuri[4] and "după " in randuri[3]
    assert randuri[5].startswith("  * doar pierderea") and randuri[-1].startswith("  primul apel = apelurile 1–3")
    pe_procesor = antrenare.tabel_moduri(_moduri("inferență")).splitlines()
    assert pe_procesor[0].startswith("INFERENȚĂ: ") and len(pe_procesor) == 5  # fără note: niciun „*” la inferență
    assert pe_procesor[2].split()[-3:] == ["—", "—", "—"]


def test_cifrele_modurilor_pe_gpu_cu_si_fara_max_autotune(cifre_notate, fara_referinta, capsys):
    comparatii = {"antrenare": _moduri("antrenare", pe_gpu=True), "inferență": _moduri("inferență", pe_gpu=True)}
    antrenare.inregistreaza_modurile(comparatii, pe_gpu=False, max_autotune=False)
    assert _dupa_cheie(cifre_notate()) == {} and fara_referinta == ["06.moduri"] and "memoria nu se măsoară" in capsys.readouterr().out
    antrenare.inregistreaza_modurile(comparatii, pe_gpu=True, max_autotune=False)
    assert fara_referinta[1:] == ["06.moduri_antrenare_max", "06.moduri_inferenta_max"]
    cifrele = _dupa_cheie(cifre_notate())
    assert "06.moduri_antrenare_eager_fused_ms" in cifrele and "06.moduri_inferenta_default_accelerare" in cifrele
    assert "06.moduri_antrenare_default_accelerare_fata_de_fused" in cifrele
    antrenare.inregistreaza_modurile(comparatii, pe_gpu=True, max_autotune=True)
    assert len(fara_referinta) == 3  # cu max-autotune măsurat, nicio referință în plus


def test_graficul_modurilor_si_exploratorul():
    comparatii = {"antrenare": _moduri("antrenare", pe_gpu=True, moduri=("eager", "default", "reduce-overhead")),
                  "inferență": _moduri("inferență")}
    fig = antrenare.grafic_moduri(comparatii)
    assert len(fig.axes) == 6
    assert fig.axes[0].get_title() == "antrenare: timpul pe pas (* optimizatorul: default)"
    assert fig.axes[5].texts[0].get_text() == "memoria se măsoară\ndoar pe GPU"
    plt.close(fig)
    c = comparatii["inferență"]
    assert c.cel_mai_ieftin(1) == "eager" and c.cel_mai_ieftin(10**7) == "default"
    for marime in antrenare.MARIMI_MODURI:
        fig = antrenare.grafic_marime_moduri(c, marime, 1_000)
        titlu = fig.axes[0].get_title()
        assert titlu.startswith(f"inferență: {marime}")
        if marime.startswith("memoria"):
            assert fig.axes[0].texts[0].get_text() == " nu se măsoară pe procesor"
        plt.close(fig)
    assert titlu == "inferență: costul total al rulării, 1 000 de pași"
    # pe GPU, memoria cerută e creșterea la un pas plus grupul grafurilor CUDA (la reduce-overhead)
    fig = antrenare.grafic_marime_moduri(comparatii["antrenare"], "memoria cerută (pas + grafuri CUDA)", 1_000)
    assert [t.get_text() for t in fig.axes[0].texts] == [" 100 MiB", " 90 MiB", " 130 MiB"]
    assert [t.get_text() for t in fig.axes[0].get_yticklabels()] == ["eager", "default", "reduce-overhead*"]
    plt.close(fig)


# --- secțiunile 4 și 5: compilarea regională, mega-cache-ul, decodarea ------------------------------------


def _regionala():
    pe_pas = _comparatie_numita({"eager": 4.0, "model întreg": 2.0, "regional": 2.2})
    return antrenare.CompilareRegionala({"model întreg": 12.0, "regional": 3.0}, {"model întreg": 2.0, "regional": 1.0},
                                        {"model întreg": 1, "regional": 1}, pe_pas, 6)


def test_tabelul_si_cifrele_compilarii_regionale(cifre_notate, fara_referinta, capsys):
    r = _regionala()
    randuri = antrenare.tabel_regionala(r).splitlines()
    assert randuri[0].split() == ["la", "rece", "la", "cald", "grafuri", "pe", "pas"]
    assert randuri[1].startswith("model întreg") and "12 s" in randuri[1] and randuri[3].startswith("eager")
    antrenare.inregistreaza_regionala(r, pe_gpu=False)
    assert _dupa_cheie(cifre_notate()) == {} and fara_referinta == ["06.regional"] and "Referința, pe GPU:" in capsys.readouterr().out
    antrenare.inregistreaza_regionala(r, pe_gpu=True)
    cifrele = _dupa_cheie(cifre_notate())
    assert set(cifrele) == {"06.regional_rece_accelerare", "06.regional_intreg_rece_s", "06.regional_intreg_cald_s",
                            "06.regional_regional_rece_s", "06.regional_regional_cald_s", "06.regional_diferenta_pas"}
    assert cifrele["06.regional_rece_accelerare"]["valoare"] == pytest.approx(4.0)
    assert cifrele["06.regional_diferenta_pas"]["valoare"] == pytest.approx(10.0)
    assert cifrele["06.regional_intreg_cald_s"]["descriere"] == "model întreg: primul pas la cald"
    assert cifrele["06.regional_rece_accelerare"]["depinde_de_procesor"] and not cifrele["06.regional_diferenta_pas"]["depinde_de_procesor"]


def test_tabelul_si_cifrele_mega_cache(cifre_notate):
    rece = PrimulApel(pas_s=10.0, proces_s=30.0, octeti_artefacte=2**20, incalzire_s=4.0)
    pornire = PrimulApel(pas_s=1.5, proces_s=12.0, incarcare_s=0.5, incalzire_s=4.0)
    randuri = antrenare.tabel_megacache(rece, pornire, 2.0).splitlines()
    assert randuri[0].startswith("Rece:") and "1 MiB" in randuri[0]
    assert randuri[2] == "Pornirea caldă costă 20% din cea rece."
    assert randuri[3].startswith("În afara timpilor:") and "30 s și 12 s" in randuri[3]
    antrenare.inregistreaza_megacache(rece, pornire, 2.0, pe_gpu=False)
    assert _dupa_cheie(cifre_notate()) == {}
    antrenare.inregistreaza_megacache(rece, pornire, 2.0, pe_gpu=True)
    cifrele = _dupa_cheie(cifre_notate())
    assert {k: c["valoare"] for k, c in cifrele.items()} == {
        "06.megacache_rece_incalzit_s": 10.0, "06.megacache_cald_incalzit_s": 2.0, "06.megacache_incarcare_s": 0.5}


def test_tabelul_si_cifrele_decodarii(cifre_notate, fara_referinta, capsys):
    decodare = _comparatie_numita({"eager": 12.0, "default, găleți": 6.0, "reduce-overhead, găleți": 3.0,
                                   "default, dynamic=True": 9.0})
    grafuri = {"eager": 0, "default, găleți": 2, "reduce-overhead, găleți": 2, "default, dynamic=True": 1}
    prima = {nume: 1.0 for nume in grafuri}
    randuri = antrenare.tabel_decodare(decodare, grafuri, prima, 12).splitlines()
    assert randuri[0].split()[0] == "strategia" and len(randuri) == 6
    assert randuri[2].startswith("default, găleți") and randuri[2].endswith("500 µs") and randuri[-1] == "Ceasul: de perete."
    antrenare.inregistreaza_decodarea(decodare, 58, 12, [64, 128], pe_gpu=False)
    assert _dupa_cheie(cifre_notate()) == {} and fara_referinta == ["06.decodare"] and "are nevoie de un GPU" in capsys.readouterr().out
    antrenare.inregistreaza_decodarea(decodare, 58, 12, [64, 128], pe_gpu=True)
    cifrele = _dupa_cheie(cifre_notate())
    assert set(cifrele) == {"06.decodare_eager_pe_jeton_ms", "06.decodare_default_galeti_pe_jeton_ms",
                            "06.decodare_ro_galeti_pe_jeton_ms", "06.decodare_dinamic_pe_jeton_ms"}
    assert cifrele["06.decodare_ro_galeti_pe_jeton_ms"]["valoare"] == pytest.approx(0.25)
    assert cifrele["06.decodare_eager_pe_jeton_ms"]["descriere"] == "latența pe jeton, lotul 1, eager; lungimile 58–69, 2 găleți"
    assert all(c["depinde_de_procesor"] for c in cifrele.values())


# --- secțiunea 6: ce a adus fiecare tehnică -------------------------------------------------------------


def _argumente_tehnici(pe_gpu: bool):
    moduri = ("eager", "default", "reduce-overhead") if pe_gpu else ("eager", "default")
    decodare = _comparatie_numita({"eager": 12.0, "default, găleți": 6.0, "reduce-overhead, găleți": 3.0})
    return dict(
        explicatie=types.SimpleNamespace(graph_count=1, graph_break_count=0),
        kerneluri={"eager": 120, "default": 30} if pe_gpu else {},
        comparatii={"antrenare": _moduri("antrenare", pe_gpu, moduri), "inferență": _moduri("inferență", pe_gpu, moduri)},
        decodare=decodare, grafuri_decodare={"default, găleți": 2}, jetoane_noi=12, regionala=_regionala(),
        parte_calda=0.2 if pe_gpu else None, pe_gpu=pe_gpu,
    )


def _randuri(text: str) -> dict:
    """Rândurile tabelului tehnicilor: tehnica → contribuția (coloanele sunt despărțite de cel puțin
    două spații, iar contribuțiile încep toate în aceeași coloană)."""
    linii = text.splitlines()
    coloane = {len(re.match(r"(.+?  +)", linie).group(1)) for linie in linii}
    assert len(coloane) == 1, coloane
    return {re.match(r"(.+?)  +", linie).group(1):
            re.match(r".+?  +(.*)", linie).group(1) for linie in linii}


def test_tabelul_tehnicilor_pe_procesor():
    randuri = _randuri(antrenare.tabel_tehnici(**_argumente_tehnici(False), max_autotune=False))
    assert list(randuri) == ["fără întreruperi (fullgraph)", "fuziunea (kernel-uri la inferență)", "compilarea (antrenare, default)",
                             "CUDA Graphs, max-autotune", "cache-ul (mega-cache, proces nou)", "compilarea regională",
                             "găleți (decodare)", "memoria (antrenare, pe GPU)"]
    assert randuri["fără întreruperi (fullgraph)"] == "1 graf, 0 întreruperi: modelul se compilează dintr-o bucată"
    assert randuri["fuziunea (kernel-uri la inferență)"].startswith("numai pe GPU")
    assert randuri["compilarea (antrenare, default)"].startswith("2× ") and randuri["compilarea (antrenare, default)"].endswith(
        "față de eager (AdamW fused=True)")
    assert randuri["cache-ul (mega-cache, proces nou)"] == "nemăsurat aici: vezi referința de mai jos"
    assert randuri["compilarea regională"] == "la rece, 25% din timpul compilării modelului întreg; pasul +10,0%"
    assert randuri["găleți (decodare)"].startswith("2 grafuri față de 12 compilări fără găleți (câte una pe jeton); 2× ")
    assert randuri["memoria (antrenare, pe GPU)"] == "numai pe GPU"


def test_tabelul_tehnicilor_pe_gpu(monkeypatch):
    referinte = {"06.moduri_antrenare_max-autotune-no-cudagraphs_accelerare_fata_de_fused": {"valoare": 1.1, "gpu": "H200"},
                 "06.moduri_antrenare_max-autotune-no-cudagraphs_pornire_s": {"valoare": 321.0, "gpu": "H200"}}
    monkeypatch.setattr(cifre, "cifra_referinta", referinte.get)
    randuri = _randuri(antrenare.tabel_tehnici(**_argumente_tehnici(True), max_autotune=False))
    assert randuri["fuziunea (kernel-uri la inferență)"] == "120 eager → 30 compilat"
    assert randuri["cel mai bun mod (antrenare)"].startswith("reduce-overhead: 3× ")
    assert randuri["cel mai bun mod (inferență)"].startswith("reduce-overhead: 3× ")
    assert randuri["CUDA Graphs (reduce-overhead, lotul 1)"].endswith("față de default, la decodare")
    assert randuri["max-autotune (antrenare)"] == "nemăsurat aici; referința (H200): 1,1× față de eager, apelurile 1–3 321 s"
    assert randuri["cache-ul (mega-cache, proces nou)"] == "pornirea caldă: 20% din cea rece"
    assert randuri["memoria (antrenare, pe GPU)"] == "eager cere 100 MiB la un pas, default 90 MiB"
    monkeypatch.setattr(cifre, "cifra_referinta", lambda cheie: None)
    randuri = _randuri(antrenare.tabel_tehnici(**_argumente_tehnici(True), max_autotune=False))
    assert randuri["max-autotune"] == "nemăsurat aici (secunde sau zeci de secunde de reglare pe fiecare formă)"


def test_tabelul_tehnicilor_cu_max_autotune_masurat():
    argumente = _argumente_tehnici(True)
    moduri = ("eager", "default", "reduce-overhead", "max-autotune-no-cudagraphs")
    argumente["comparatii"]["antrenare"] = _moduri("antrenare", True, moduri)
    randuri = _randuri(antrenare.tabel_tehnici(**argumente, max_autotune=True))
    assert randuri["max-autotune (antrenare)"].startswith("2× ")  # 2,5 ms față de 5 ms, pe pas
    assert randuri["max-autotune (antrenare)"].endswith("față de default; apelurile 1–3 5,01 s")  # 5 s + 10 ms + 5 ms
    assert randuri["cel mai bun mod (antrenare)"].startswith("max-autotune-no-cudagraphs: 4× ")
