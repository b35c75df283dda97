"""Uneltele capitolului 12 (memoria sub compilare): numărătoarea exactă a activărilor salvate (cârligele și
grafurile de după partiționare, aceleași octeți), ce recalculează partiționatorul, vârful memoriei pe procesor
(profilerul), bancul de strategii pe același model, compilat o dată pentru orice lot, întrebarea practică
(modelul memoriei, lotul maxim, alegerea bugetului), instantaneul memoriei (calea GPU-ului, cu funcțiile CUDA
înlocuite) și textele tipărite, în formatul cursului.

Compilările folosesc partiționarea lui Inductor fără cod generat (`genereaza_cod=False`), în afară de un singur
test, care compilează cu Inductor întreg un bloc minuscul: acolo se verifică faptul pe care se sprijină capitolul,
că cârligele văd exact ce salvează codul generat. Bancul de strategii e construit o singură dată pe modul."""

from __future__ import annotations

import contextlib
import functools
import io
import math
import operator
import re

import pytest
import torch
from torch.utils.checkpoint import CheckpointPolicy, checkpoint, create_selective_checkpoint_contexts

from curs_compilare import cifre
from curs_compilare.capitole import cap12_memorie as mem12
from curs_compilare.cifre import probleme_de_format
from curs_compilare.concluzii import contradictii
from curs_compilare.masurare import Masuratoare

MARIMI = mem12.Marimi(nr_blocuri=1, dim_model=16, nr_capete=2, lungime=8, lot=2)


def _tiparit(functie, *argumente, **argumente_numite) -> str:
    """Ce tipărește `functie`, verificat: formatul numerelor cursului, nicio concluzie contrazisă."""
    import matplotlib

    matplotlib.use("Agg")
    tampon = io.StringIO()
    with contextlib.redirect_stdout(tampon):
        functie(*argumente, **argumente_numite)
    text = tampon.getvalue()
    assert not probleme_de_format(text), probleme_de_format(text)
    assert not contradictii(text), contradictii(text)
    assert not re.search("[\u015f\u015e\u0163\u0162]", text)
    return text


def cu_checkpoint(bloc, x):
    return checkpoint(bloc, x, use_reentrant=False)


def _politica(ctx, op, *args, **kwargs):
    return CheckpointPolicy.MUST_SAVE if op in mem12.OPERATII_CALCUL_INTENS else CheckpointPolicy.PREFER_RECOMPUTE


_CONTEXT = functools.partial(create_selective_checkpoint_contexts, _politica)


def cu_sac(bloc, x):
    return checkpoint(bloc, x, use_reentrant=False, context_fn=_CONTEXT)


@pytest.fixture(scope="module")
def banc():
    """Bancul capitolului pe o stivă cu un bloc minuscul: eager, bugetele 1,0 și 0,0, checkpointing pe
    blocuri și selectiv, toate compilate (fără cod generat) o singură dată pentru tot modulul."""
    stiva = mem12.stiva_noua(MARIMI, dispozitiv="cpu")
    banc = mem12.BancDeLucru(stiva, MARIMI, genereaza_cod=False)
    banc.adauga("eager", compilat=False)
    for buget in (1.0, 0.0):
        banc.adauga(mem12.nume_buget(buget), buget=buget)
    banc.adauga("checkpointing pe blocuri", cu_checkpoint)
    banc.adauga("checkpointing selectiv", cu_sac)
    return banc


@pytest.fixture(scope="module")
def rezultate(banc):
    return banc.masoara(runde=3, timp_minim_s=0.02)


# ---------------------------------------------------------------------------------------------
# Dimensiunile și modelul
# ---------------------------------------------------------------------------------------------


def test_marimi_pe_profil(monkeypatch):
    monkeypatch.setenv("CURS_PROFIL", "rapid")
    rapid = mem12.marimi_pentru_mediu()
    monkeypatch.setenv("CURS_PROFIL", "complet")
    complet = mem12.marimi_pentru_mediu()
    if not torch.cuda.is_available():
        assert (rapid.nr_blocuri, rapid.dim_model) == (1, 16) and rapid.precizie is None
        assert (complet.nr_blocuri, complet.dim_model, complet.lungime, complet.lot) == (3, 128, 64, 8)
    for m in (rapid, complet):
        assert m.dim_model % m.nr_capete == 0 and m.lot >= 2
        assert not probleme_de_format(m.descriere()), m.descriere()
    monkeypatch.setenv("CURS_PROFIL", "rapid")
    assert mem12.bugete_capitol() == (1.0, 0.5, 0.0)
    monkeypatch.setenv("CURS_PROFIL", "complet")
    assert mem12.bugete_capitol() == mem12.BUGETE and len(mem12.BUGETE) >= 6
    assert mem12.BUGETE[0] == 1.0 and mem12.BUGETE[-1] == 0.0
    assert [mem12.nume_buget(b) for b in (1.0, 0.5, 0.0)] == ["buget 1,0", "buget 0,5", "buget 0,0"]


def test_stiva_cu_invelis_imparte_parametrii():
    stiva = mem12.stiva_noua(MARIMI, dispozitiv="cpu")
    alta = stiva.cu_invelis(cu_checkpoint)
    assert alta.blocuri is stiva.blocuri and alta.invelis is cu_checkpoint and stiva.invelis is None
    x, _ = mem12.lot_de_intrari(MARIMI, dispozitiv="cpu", dinamic=False)
    with torch.no_grad():
        torch.testing.assert_close(alta(x), stiva(x))
    # aceeași sămânță, aceleași ponderi
    a, b = mem12.stiva_noua(MARIMI, dispozitiv="cpu"), mem12.stiva_noua(MARIMI, dispozitiv="cpu")
    assert all(torch.equal(p, q) for p, q in zip(a.parameters(), b.parameters()))


def test_operatiile_si_blocul_mlp():
    assert torch.ops.aten.addmm.default in mem12.OPERATII_MATMUL and torch.ops.aten.mm.default in mem12.OPERATII_MATMUL
    assert torch.ops.aten._scaled_dot_product_flash_attention_for_cpu.default in mem12.OPERATII_ATENTIE
    assert set(mem12.OPERATII_CALCUL_INTENS) == set(mem12.OPERATII_MATMUL) | set(mem12.OPERATII_ATENTIE)
    assert mem12.nume_operatie(torch.ops.aten.addmm.default) == "addmm"
    bloc = mem12.BlocMLP(8, "gelu_tanh", True)
    assert bloc(torch.randn(2, 3, 8)).shape == (2, 3, 8)
    with pytest.raises(ValueError, match="activarea"):
        mem12.BlocMLP(8, "swish", False)


# ---------------------------------------------------------------------------------------------
# Activările salvate: cârligele, exact
# ---------------------------------------------------------------------------------------------


def test_inventarul_eager_e_exact():
    """Un calcul cu activările știute: `y = (x @ w).tanh()`; `mm` salvează x și w (intrare, parametru), `tanh` își
    salvează ieșirea. Singura activare numărată e ieșirea lui tanh; parametrul e numărat separat."""

    class Mic(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.w = torch.nn.Parameter(torch.randn(4, 5))

        def forward(self, x):
            return (x @ self.w).tanh()

    model = Mic()
    x, tinta = torch.randn(3, 4), torch.randn(3, 5)
    inventar = mem12.inventar_eager(model, x, tinta)
    # tanh(x@w) (60 B) salvat de tanh; mse_loss își salvează intrarea: aceeași ieșire, aceeași memorie, o dată
    assert inventar.octeti == 3 * 5 * 4 and inventar.tensori == 1
    assert inventar.octeti_exclusi == 3 * 4 * 4 + 3 * 5 * 4  # x (salvat de mm, pentru gradientul lui w) și ținta
    assert inventar.pe_nod and sum(inventar.pe_nod.values()) == inventar.octeti
    assert model.w.grad is not None  # pasul înapoi a rulat


def test_cronologia_urca_si_coboara():
    stiva = mem12.stiva_noua(MARIMI, dispozitiv="cpu")
    x, tinta = mem12.lot_de_intrari(MARIMI, dispozitiv="cpu", dinamic=False)
    inventar = mem12.inventar_eager(stiva, x, tinta)
    for p in stiva.parameters():
        p.grad = None
    cr = mem12.cronologia_memoriei(stiva, x, tinta, excluse=list(stiva.parameters()))
    assert max(cr.octeti_salvate) == inventar.octeti
    assert cr.octeti_salvate[-1] == 0  # toate eliberate la sfârșitul pasului înapoi
    assert 0 <= cr.inceput_inapoi_ms <= cr.sfarsit_ms
    assert cr.timpi_salvate_ms == sorted(cr.timpi_salvate_ms)
    assert cr.varf_octeti >= inventar.octeti and cr.unde == "procesor"
    text = _tiparit(mem12.arata_cronologia, cr)
    assert "Vârful memoriei tensorilor în pas" in text and f"pasul {cr.faza_varfului}" in text


def test_varful_pe_procesor_din_profiler():
    def doi_tensori():
        a = torch.empty(1024, 1024)
        b = torch.empty(1024, 1024)
        del a
        c = torch.empty(1024, 1024)
        del b, c

    assert mem12.varf_pas(doi_tensori, "cpu") == 2 * 1024 * 1024 * 4


# ---------------------------------------------------------------------------------------------
# Partiția: ce se salvează, ce se reface
# ---------------------------------------------------------------------------------------------


def _partitie(model, x, tinta, buget=1.0, genereaza_cod=False):
    functie, compilator = mem12.compileaza(model, buget, genereaza_cod=genereaza_cod)
    with mem12._limita_mare_de_recompilari():
        mem12.un_pas(functie, x, tinta)
    return functie, compilator.partitie


def test_carligele_vad_exact_ce_salveaza_graful(banc):
    """Pe funcția compilată, cârligele văd ce a ales graful înainte, plus ce salvează pierderea (în afara
    grafului): aceiași octeți, pentru fiecare strategie compilată a bancului."""
    x, tinta = banc.intrari(MARIMI.lot)
    pierdere = MARIMI.lot * MARIMI.lungime * MARIMI.dim_model * 4  # mse_loss își salvează intrarea
    for nume, strategie in banc.strategii.items():
        if not strategie.compilat:
            continue
        partitie = strategie.partitie
        assert partitie.completa and len(partitie.grafuri_dynamo) == 1, nume
        assert banc.octeti_salvati(nume) == partitie.octeti_salvati + pierdere, nume


def test_cu_inductor_intreg_carligele_vad_acelasi_lucru():
    """Un bloc MLP minuscul, compilat cu Inductor întreg (codul C++ generat): cârligele pe funcția compilată văd
    exact octeții pe care graful înainte îi dă grafului înapoi (plus pierderea), iar partiționarea e aceeași ca
    fără cod generat."""
    torch.manual_seed(0)
    bloc = mem12.BlocMLP(8, "gelu_tanh", True)
    x, tinta = torch.randn(2, 4, 8), torch.randn(2, 4, 8)
    functie, partitie = _partitie(bloc, x, tinta, genereaza_cod=True)
    assert partitie.genereaza_cod and partitie.completa
    pierdere = x.numel() * 4
    cu_carlige = mem12.inventar_eager_functie(functie, bloc, x, tinta).octeti
    assert cu_carlige == partitie.octeti_salvati + pierdere
    torch.manual_seed(0)
    _, fara_cod = _partitie(mem12.BlocMLP(8, "gelu_tanh", True), x, tinta, genereaza_cod=False)
    assert fara_cod.octeti_salvati == partitie.octeti_salvati
    assert fara_cod.recalculate() == partitie.recalculate() and partitie.recalculate()["tanh"] == 1


def test_compilatorul_nu_schimba_configuratia():
    inainte = torch._functorch.config.activation_memory_budget
    bloc = mem12.BlocMLP(8, "relu", False)
    x = torch.randn(2, 4, 8)
    _, partitie = _partitie(bloc, x, x.clone(), buget=0.3)
    assert partitie.buget == 0.3
    assert torch._functorch.config.activation_memory_budget == inainte
    with pytest.raises(ValueError, match="între 0 și 1"):
        mem12.Compilator(1.5)


def test_limita_de_recompilari_se_pune_la_loc():
    from curs_compilare.inspectie import nume_limita_recompilari

    nume = nume_limita_recompilari()
    inainte = getattr(torch._dynamo.config, nume)
    with mem12._limita_mare_de_recompilari():
        assert getattr(torch._dynamo.config, nume) >= 256
    assert getattr(torch._dynamo.config, nume) == inainte


@pytest.mark.parametrize("activare, cu_norma, asteptat", [
    ("gelu_tanh", False, {"mul", "add", "tanh"}),
    ("relu", False, set()),
    ("sigmoid", True, {"sub", "mul"}),
])
def test_recalcularile_blocului_mlp(activare, cu_norma, asteptat):
    """Regulile partiționatorului, pe versiunea instalată: lanțul lui GELU până la tanh se reface, ReLU nu reface
    nimic, normalizarea își reface x̂ = (x − media) · rstd; produsele de matrice și reducerile nu se refac."""
    torch.manual_seed(0)
    bloc = mem12.BlocMLP(16, activare, cu_norma)
    x, tinta = torch.randn(2, 6, 16), torch.randn(2, 6, 16)
    _, partitie = _partitie(bloc, x, tinta)
    refacute = set(partitie.recalculate()) - {"view", "permute", "t"}
    assert refacute == asteptat
    assert partitie.flops_recalculate() == 0


def test_flops_recalculate_la_bugetul_zero():
    torch.manual_seed(0)
    bloc = mem12.BlocMLP(16, "relu", False)
    x, tinta = torch.randn(2, 6, 16), torch.randn(2, 6, 16)
    _, partitie = _partitie(bloc, x, tinta, buget=0.0)
    refacute = partitie.recalculate()
    assert refacute["addmm"] >= 1
    # addmm-ul lui `sus` (12 × 16 → 64) și, dacă e refăcut, al lui `jos` (12 × 64 → 16): 2·m·k·n fiecare
    unul = 2 * 12 * 16 * 64
    assert partitie.flops_recalculate() in {unul * c for c in range(1, 3)}
    assert partitie.octeti_salvati == 0  # la bugetul 0 se salvează doar intrările


def test_partitia_goala_si_checkpointurile(banc):
    goala = mem12.Partitie()
    assert not goala.completa and goala.salvate() == [] and goala.recalculate() == {} and goala.octeti_salvati == 0
    assert goala.varf_din_grafuri().octeti == 0
    assert banc.strategii["checkpointing pe blocuri"].partitie.checkpointuri() == MARIMI.nr_blocuri
    assert banc.strategii["checkpointing selectiv"].partitie.checkpointuri() == MARIMI.nr_blocuri
    assert banc.strategii["buget 1,0"].partitie.checkpointuri() == 0


# ---------------------------------------------------------------------------------------------
# Bancul de strategii
# ---------------------------------------------------------------------------------------------


def test_bancul_imparte_modelul_si_nu_recompileaza(banc):
    assert banc.adauga("buget 1,0") is banc.strategii["buget 1,0"]
    assert banc.octeti_ficsi == 3 * sum(p.numel() * 4 for p in banc.stiva.parameters())
    for strategie in banc.strategii.values():
        model = getattr(strategie.functie, "_orig_mod", strategie.functie)
        assert model.blocuri is banc.stiva.blocuri
    # lotul e dinamic: alt lot, nicio recompilare
    x, tinta = banc.intrari(5)
    with torch.compiler.set_stance("fail_on_recompile"):
        for strategie in banc.strategii.values():
            banc._pas(strategie, x, tinta)
    assert "Inductor" in banc.descriere()


def test_ordinea_strategiilor(rezultate):
    r = {x.nume: x for x in rezultate}
    assert r["buget 1,0"].octeti_salvati > r["checkpointing selectiv"].octeti_salvati > r["checkpointing pe blocuri"].octeti_salvati
    assert r["buget 1,0"].octeti_salvati >= r["buget 0,0"].octeti_salvati
    assert abs(r["eager"].octeti_salvati - r["buget 1,0"].octeti_salvati) <= 0.05 * r["eager"].octeti_salvati
    assert not mem12._scumpe(r["checkpointing selectiv"].recalculate)
    # checkpointing-ul pe blocuri reface produsele de matrice ale fiecărui bloc (nu și pe ultimul, al cărui
    # rezultat nu intră în niciun gradient) și atenția fiecărui bloc
    scumpe = mem12._scumpe(r["checkpointing pe blocuri"].recalculate)
    assert scumpe["addmm"] >= 3 * MARIMI.nr_blocuri and sum(c for n, c in scumpe.items() if n != "addmm") == MARIMI.nr_blocuri
    assert all(x.timp is not None and x.varf_octeti for x in rezultate)
    assert r["eager"].partitie is None and r["eager"].flops_recalculate == 0


def test_varful_din_grafuri_la_bugetul_zero(rezultate):
    r = {x.nume: x for x in rezultate}
    zero = r["buget 0,0"].partitie.varf_din_grafuri()
    unu = r["buget 1,0"].partitie.varf_din_grafuri()
    assert zero.faza == "înapoi" and zero.octeti_salvati == 0
    assert unu.octeti_salvati == r["buget 1,0"].partitie.octeti_salvati
    assert zero.vii and sum(zero.vii.values()) <= zero.octeti


def test_textele_tiparite(rezultate, banc):
    inventar = mem12.inventar_eager(banc.stiva, *banc.intrari(MARIMI.lot))
    _tiparit(mem12.arata_inventarul, inventar, MARIMI)
    text = _tiparit(mem12.arata_ce_salveaza_compilatorul, inventar, banc.strategii["buget 1,0"].partitie,
                    banc.octeti_salvati("buget 1,0"))
    assert "exact ce salvează pierderea" in text and "Ce recalculează" in text
    text = _tiparit(mem12.arata_comparatia, rezultate, "buget 1,0")
    assert "checkpointing pe blocuri" in text
    text = _tiparit(mem12.arata_bugetele, rezultate)
    assert "Octeții salvați" in text and "Vârful memoriei" in text
    _tiparit(mem12.arata_diagrama, rezultate)
    text = _tiparit(mem12.explica_varful, rezultate, ["buget 1,0", "buget 0,0"])
    assert "vârful din grafuri" in text
    text = _tiparit(mem12.arata_tinta, rezultate)
    assert "Ținta" in text
    if not torch.cuda.is_available():
        assert cifre.despre_referinta("diagrama viteză–memorie pe GPU", "12.varf_") in text


def test_cifrele_ajung_in_registru(rezultate, cifre_notate):
    mem12.inregistreaza(rezultate)
    chei = {c["cheie"] for c in cifre_notate()}
    assert "12.salvat_buget_1_0_mib" in chei and "12.varf_checkpointing_pe_blocuri_mib" in chei
    assert any(c.startswith("12.pas_") for c in chei)
    assert all(re.fullmatch(r"12\.[a-z0-9_]+", c) for c in chei), chei


# ---------------------------------------------------------------------------------------------
# Întrebarea practică
# ---------------------------------------------------------------------------------------------


def _m(secunde: float, runde=(1.0, 1.0, 1.0)) -> Masuratoare:
    return Masuratoare(secunde, secunde, secunde, 3, "test", mediane_runde=tuple(secunde * r for r in runde))


def test_modelul_memoriei_si_timpul_pe_exemplu():
    model = mem12.ModelMemorie("x", fix=100, alfa=20.0, beta=10.0)
    assert model.total(3) == 150 and model.lot_maxim_estimat(150) == 3 and model.lot_maxim_estimat(149) == 2
    assert mem12.ModelMemorie("y", 0, 0.0, 0.0).lot_maxim_estimat(100) == 0
    assert model.timp_pe_exemplu(4) == (None, "nemăsurat")
    model.timpi = {2: _m(0.2), 6: _m(0.4)}
    assert model.timp_pe_exemplu(2) == (0.1, "măsurat")
    t, sursa = model.timp_pe_exemplu(4)
    assert math.isclose(t, 0.3 / 4) and "estimat" in sursa
    t, _ = model.timp_pe_exemplu(8)
    assert math.isclose(t, 0.5 / 8)


def test_alege_bugetul():
    def rez(nume, buget, varf, flops):
        r = mem12.Rezultat(nume, 4, buget, 0, varf)
        r.__class__ = type("R", (mem12.Rezultat,), {"flops_recalculate": property(lambda self, f=flops: f)})
        return r

    rezultate = [rez("buget 1,0", 1.0, 100, 0.0), rez("buget 0,5", 0.5, 60, 10.0), rez("buget 0,0", 0.0, 70, 30.0),
                 rez("eager", None, 10, 0.0)]
    assert mem12.alege_bugetul(rezultate, 110, 10) == "buget 1,0"
    assert mem12.alege_bugetul(rezultate, 85, 10) == "buget 0,5"   # 0,0 încape și el, dar reface mai mult
    assert mem12.alege_bugetul(rezultate, 75, 10) == "buget 0,5"
    assert mem12.alege_bugetul(rezultate, 69, 10) is None          # eager nu e un buget


def test_lotul_maxim_si_raspunsul_practic(banc):
    plafon, explicatie = mem12.plafon_pentru_mediu(banc)
    if not torch.cuda.is_available():
        assert plafon == banc.octeti_ficsi + banc.varf("buget 1,0", 2 * MARIMI.lot)
        assert "ales de curs" in explicatie
    raspuns = mem12.cel_mai_rapid_care_incape(banc, ["buget 1,0", "checkpointing pe blocuri"], plafon, explicatie)
    for nume, lot in raspuns.loturi.items():
        masurat = dict(zip(raspuns.modele[nume].loturi, raspuns.modele[nume].varfuri))
        assert lot >= 1 and banc.octeti_ficsi + masurat[lot] <= plafon, nume
        assert banc.octeti_ficsi + masurat[lot + 1] > plafon, nume
    assert raspuns.loturi["buget 1,0"] >= 2 * MARIMI.lot  # plafonul e chiar memoria lui la lotul 2 · L
    assert raspuns.cea_mai_rapida in raspuns.loturi
    text = _tiparit(mem12.arata_intrebarea_practica, raspuns)
    assert "Cel mai mare lot îl duce" in text and "ponderile și stările lui AdamW ocupă" in text
    loturi = mem12.loturi_pentru_explorator(raspuns, MARIMI)
    assert loturi == sorted(loturi) and MARIMI.lot in loturi
    _tiparit(mem12.exploreaza_plafonul, raspuns, loturi)
    la_lot = banc.masoara(["buget 1,0", "buget 0,0"], lot=raspuns.loturi["buget 1,0"] + 1, cu_timp=False)
    text = _tiparit(mem12.arata_alegerea_bugetului, la_lot, plafon, banc.octeti_ficsi)
    assert "încape" in text


# ---------------------------------------------------------------------------------------------
# Instantaneul memoriei: pe procesor spune ce ar face, pe GPU urmează API-ul CUDA
# ---------------------------------------------------------------------------------------------


def test_instantaneul_pe_procesor(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    text = _tiparit(mem12.instantaneu_memorie, lambda: None)
    assert "doar pe un GPU CUDA" in text and "pytorch.org/memory_viz" in text
    assert cifre.despre_referinta("instantaneul memoriei unui pas (fișierul .pickle al capitolului 12)",
                                  "12.instantaneu") in text


def test_instantaneul_pe_gpu_cu_api_ul_cuda(monkeypatch, tmp_path):
    """Calea GPU-ului, cu funcțiile CUDA înlocuite: istoria pornește, pasul rulează, instantaneul se scrie, iar
    istoria se oprește la sfârșit (și după o eroare)."""
    apeluri = []
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "synchronize", lambda *a, **k: None)
    monkeypatch.setattr(torch.cuda.memory, "_record_memory_history",
                        lambda enabled="all", **k: apeluri.append(("istoria", enabled, k.get("max_entries"))))

    def scrie(cale):
        apeluri.append(("scrie", cale))
        open(cale, "wb").write(b"instantaneu")

    monkeypatch.setattr(torch.cuda.memory, "_dump_snapshot", scrie)
    monkeypatch.setattr(cifre, "radacina_cursului", lambda: tmp_path)
    cale = mem12.instantaneu_memorie(lambda: apeluri.append(("pas",)), "proba")
    assert cale == tmp_path / "build" / "memorie" / "proba.pickle" and cale.read_bytes() == b"instantaneu"
    assert [a[0] for a in apeluri] == ["istoria", "pas", "scrie", "istoria"]
    assert apeluri[0][1] == "all" and apeluri[0][2] and apeluri[-1][1] is None

    def pas_gresit():
        raise RuntimeError("pas")

    apeluri.clear()
    with pytest.raises(RuntimeError):
        mem12.instantaneu_memorie(pas_gresit, "proba")
    assert apeluri[-1][:2] == ("istoria", None)


def _graf_cu_atentia_invelita() -> tuple[torch.fx.GraphModule, torch.fx.GraphModule]:
    """Grafurile pe care le dă partiționatorul unor versiuni (torch 2.11) pentru o atenție SDPA refăcută
    sub checkpointing: în pasul înainte, `run_and_save_rng_state(sdpa, q, k, v)`; în cel înapoi,
    `run_with_rng_state(stare, sdpa, q, k, v)`, cu alt nume de nod decât în pasul înainte."""
    from torch._prims.rng_prims import run_and_save_rng_state, run_with_rng_state

    sdpa = torch.ops.aten._scaled_dot_product_flash_attention_for_cpu.default
    q = torch.randn(1, 2, 4, 8)

    inainte = torch.fx.Graph()
    intrari = [inainte.placeholder(n) for n in ("q", "k", "v")]
    for nod in intrari:
        nod.meta["val"] = q
    perechea = inainte.call_function(run_and_save_rng_state, (sdpa, *intrari))
    stare = inainte.call_function(operator.getitem, (perechea, 0))
    iesiri = inainte.call_function(operator.getitem, (perechea, 1))
    inainte.output((iesiri, stare, *intrari))

    inapoi = torch.fx.Graph()
    stare_b = inapoi.placeholder("getitem")
    intrari_b = [inapoi.placeholder(n) for n in ("q", "k", "v")]
    for nod in intrari_b:
        nod.meta["val"] = q
    refacuta = inapoi.call_function(run_with_rng_state, (stare_b, sdpa, *intrari_b))
    inapoi.output((refacuta,))
    return torch.fx.GraphModule({}, inainte), torch.fx.GraphModule({}, inapoi)


def test_atentia_refacuta_cu_starea_aleatoare_se_numara_ca_atentie():
    """Pe torch 2.11, atenția refăcută apare în graful înapoi ca `run_with_rng_state(..., sdpa, ...)`:
    tot atenție refăcută (nume, număr, operații în virgulă mobilă), nu o operație necunoscută."""
    inainte, inapoi = _graf_cu_atentia_invelita()
    noduri = {n.name: n for g in (inainte, inapoi) for n in g.graph.nodes}
    assert mem12.nume_nod(noduri["run_and_save_rng_state"]) == "_scaled_dot_product_flash_attention_for_cpu"
    assert mem12.nume_nod(noduri["run_with_rng_state"]) == "_scaled_dot_product_flash_attention_for_cpu"
    partitie = mem12.Partitie(grafuri_inainte=[inainte], grafuri_inapoi=[inapoi])
    assert partitie.recalculate() == {"_scaled_dot_product_flash_attention_for_cpu": 1}
    assert partitie.flops_recalculate() == 4.0 * 1 * 2 * 4 * 4 * 8
