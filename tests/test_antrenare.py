"""Teste pentru `curs_compilare.capitole.cap06_modelul_intreg` (capitolul 06). Pe CPU, cu modele minuscule; compilările
folosesc backend-ul „eager” (doar Dynamo) unde nu contează codul generat."""

import json
import math

import pytest
import torch
import torch.nn.functional as F

from curs_compilare.capitole import cap06_modelul_intreg as antrenare
from curs_compilare.capitole.cap06_modelul_intreg import (
    PREFIX_COMPILAT,
    DateCiclu,
    antreneaza,
    chei_fara_prefix,
    genereaza,
    marime_galeata,
    medii_pe_ferestre,
    numara_grafuri,
    optimizare_cu_rata_tensor,
)
from curs_compilare.modele import ConfiguratieTransformer, ReteaTransformer, pierdere

MIC = ConfiguratieTransformer(vocabular=64, dim_model=32, nr_capete=2, nr_straturi=1, lungime=16, marime_lot=8)


def test_datele_urmeaza_ciclul_si_trec_prin_tot_vocabularul():
    date = DateCiclu(MIC)
    assert sorted(date.ordine.tolist()) == list(range(MIC.vocabular))
    intrari, tinte = date.lot()
    assert intrari.shape == tinte.shape == (MIC.marime_lot, MIC.lungime)
    assert torch.equal(date.urmatorul[intrari], tinte)
    assert date.respecta_regula(torch.cat([intrari[0], tinte[0, -1:]]))
    assert not date.respecta_regula(torch.tensor([0, 0, 0]))
    # aceeași sămânță, aceleași loturi
    a, b = date.loturi(3, samanta=5), date.loturi(3, samanta=5)
    assert all(torch.equal(x[0], y[0]) for x, y in zip(a, b))


def test_pierderea_scade_clar_sub_ln_vocabular():
    torch.manual_seed(0)
    model = ReteaTransformer(MIC)
    date = DateCiclu(MIC)
    optimizator, pas = optimizare_cu_rata_tensor(model, 3e-3, compilat=False)
    rulare = antreneaza(model, date.loturi(150), lambda x, y: pierdere(model, x, y), pas, optimizator, "eager")
    assert len(rulare.pierderi) == 150
    assert rulare.pierderi[0] == pytest.approx(math.log(MIC.vocabular), rel=0.1)
    assert sum(rulare.pierderi[-10:]) / 10 < 0.5 * math.log(MIC.vocabular)
    assert rulare.pe_pas_s > 0 and rulare.total_s >= rulare.prima_s >= rulare.primul_inainte_inapoi_s > 0


def test_rata_in_tensor_nu_recompileaza_rata_float_da():
    from curs_compilare.inspectie import NumaratorCompilari

    torch.manual_seed(0)
    model = torch.nn.Linear(4, 4)
    for p in model.parameters():
        p.grad = torch.ones_like(p)
    numarator = NumaratorCompilari()
    optimizator, pas = optimizare_cu_rata_tensor(model, 1e-3, backend=numarator)
    for valoare in (1e-3, 2e-3, 3e-3):
        optimizator.param_groups[0]["lr"].fill_(valoare)
        pas()
    assert numarator.compilari == 1
    # rata ca număr Python: o constantă a grafului, deci o recompilare la fiecare valoare nouă
    torch._dynamo.reset()
    numarator = NumaratorCompilari()
    optimizator_float = torch.optim.AdamW(model.parameters(), lr=1e-3)
    pas_float = torch.compile(lambda: optimizator_float.step(), backend=numarator)
    for valoare in (1e-3, 2e-3, 3e-3):
        optimizator_float.param_groups[0]["lr"] = valoare
        pas_float()
    assert numarator.compilari >= 2


def test_medii_pe_ferestre():
    medii = medii_pe_ferestre([1, 3, 5, 7, 9], 2)
    assert medii.tolist() == [2.0, 6.0]


def test_state_dict_torch_compile_are_prefix_model_compile_nu():
    model = ReteaTransformer(MIC)
    compilat = torch.compile(model)
    chei = list(compilat.state_dict())
    assert all(c.startswith(PREFIX_COMPILAT) for c in chei)
    curat = ReteaTransformer(MIC)
    with pytest.raises(RuntimeError):
        curat.load_state_dict(compilat.state_dict())
    curat.load_state_dict(chei_fara_prefix(compilat.state_dict()))
    pe_loc = ReteaTransformer(MIC)
    pe_loc.compile()
    assert list(pe_loc.state_dict()) == list(model.state_dict())


def test_marimea_galetii():
    assert [marime_galeata(n) for n in (1, 16, 17, 33, 64, 65, 128, 129)] == [16, 16, 32, 64, 64, 128, 128, 192]
    assert marime_galeata(3, minim=4) == 4
    assert marime_galeata(20, maxim=24) == 24
    with pytest.raises(ValueError):
        marime_galeata(30, maxim=24)


def test_completarea_la_dreapta_nu_schimba_logiturile_pozitiilor_reale():
    torch.manual_seed(0)
    model = ReteaTransformer(MIC).eval()
    x = torch.randint(MIC.vocabular, (1, 5))
    completat = torch.cat([x, torch.zeros(1, 11, dtype=x.dtype)], dim=1)
    with torch.no_grad():
        torch.testing.assert_close(model(completat)[:, :5], model(x))


def test_generarea_cu_galeti_da_aceleasi_jetoane_si_mai_putine_grafuri():
    from curs_compilare.inspectie import NumaratorCompilari

    torch.manual_seed(0)
    model = ReteaTransformer(MIC).eval()
    prompt = torch.randint(MIC.vocabular, (1, 3))
    exact = genereaza(model, prompt, 10)
    cu_galeti = genereaza(model, prompt, 10, galeti=True, minim_galeata=4, lungime_maxima=MIC.lungime)
    assert torch.equal(exact, cu_galeti)
    numarator = NumaratorCompilari()
    compilat = torch.compile(antrenare.invelis_nou(model, "galeti"), backend=numarator, dynamic=False)
    with numara_grafuri() as grafuri:
        genereaza(compilat, prompt, 10, galeti=True, minim_galeata=4, lungime_maxima=MIC.lungime)
    assert numarator.compilari == grafuri["numar"] == 3  # găleți de 4, 8 și 16


def test_compara_moduri_refoloseste_si_amortizeaza():
    from curs_compilare.masurare_compilare import PornireCompilata

    model = ReteaTransformer(MIC).eval()
    x = torch.randint(MIC.vocabular, (2, 8))
    f = torch.no_grad()(model)
    falsa = torch.compile(antrenare.invelis_nou(f, "refolosita"), backend="eager")
    falsa(x)
    comparatie = antrenare.compara_moduri(lambda mod: antrenare.functie_pentru_mod(f, mod), x, moduri=["eager", "default"],
                                          existente={"default": (falsa, PornireCompilata((1.0, 0.01, 0.01)))},
                                          runde=2, timp_minim_s=0.02)
    assert comparatie.moduri == ["eager", "default"]
    assert comparatie.pana_la_regim_s("default") == pytest.approx(1.02)
    # primul apel al modelului amortizării: T(1..3) − 2 · timpul pe pas
    assert comparatie.prima_s["default"] == pytest.approx(1.02 - 2 * comparatie.pas_s("default"))
    assert comparatie.prima_s["eager"] == comparatie.pas_s("eager")
    assert comparatie.memorie_pas_mib["eager"] is None and comparatie.memorie_ceruta_mib("default") is None  # pe CPU nu se măsoară
    servire = comparatie.masuratori_servire()
    assert set(servire["default"]) == {"prima_s", "pe_apel_ms", "memorie_mib"} and servire["default"]["memorie_mib"] == 0.0
    n = comparatie.amortizare("default")
    if n is not None:
        assert comparatie.cost_total_s("default", n) <= comparatie.cost_total_s("eager", n) * (1 + 1e-9)
    # la n = 3, modelul dă exact timpul măsurat al primelor trei apeluri
    assert comparatie.cost_total_s("default", 3) == pytest.approx(comparatie.pana_la_regim_s("default"))


def test_compara_moduri_ordinea_inversa_si_cache_comun(monkeypatch):
    """Ordinea compilării (inversă) și cache-ul comun: primul mod al grupului pornește la rece (cu
    `fara_cache=True`), următorul se compilează în același cache și e notat ca nefiind la rece."""
    from curs_compilare import masurare_compilare

    apeluri = []
    original = antrenare.timp_pana_la_regim

    def inregistrat(functie, *argumente, fara_cache=True, **numite):
        apeluri.append(fara_cache)
        return original(functie, *argumente, fara_cache=fara_cache, **numite)

    monkeypatch.setattr(antrenare, "timp_pana_la_regim", inregistrat)
    x = torch.randn(16)
    ordine = []

    def construieste(mod):
        if mod == "eager":
            return torch.sin
        ordine.append(mod)
        return torch.compile(masurare_compilare.invelis_nou(torch.sin, mod), backend="eager")

    c = antrenare.compara_moduri(construieste, x, moduri=["eager", "a", "b", "c"], ordine_inversa=True,
                                 cache_comun=("b", "a"), runde=2, timp_minim_s=0.01)
    assert ordine == ["c", "b", "a"] and c.ordine_compilare == ("c", "b", "a")
    assert c.moduri == ["eager", "a", "b", "c"]  # afișate în ordinea cerută
    assert apeluri == [True, False, False]  # „c” cu cache-ul lui gol; „b” și „a” în cache-ul comun, deschis de „b”
    assert c.cache_comun == ("a",)
    assert antrenare.eticheta_mod(c, "a") == "a†" and antrenare.eticheta_mod(c, "b") == "b"
    assert len(antrenare.note_etichete(c)) == 1 and all(len(p.apeluri_s) == 3 for p in c.pornire.values())


def test_etichetele_la_antrenare_noteaza_optimizatorul():
    from curs_compilare.masurare import Comparatie, Masuratoare

    m = Masuratoare(mediana_s=1.0, cuantila20_s=1.0, cuantila80_s=1.0, numar_rulari=1, unealta="x")
    pe_pas = Comparatie({"eager": m, "default": m, "reduce-overhead": m}, ceas="perete")
    c = antrenare.ComparatieModuri("antrenare", pe_pas, {}, {})
    assert [antrenare.eticheta_mod(c, mod) for mod in c.moduri] == ["eager", "default", "reduce-overhead*"]
    assert "optimizatorului" in antrenare.note_etichete(c)[0]
    assert antrenare.eticheta_mod(antrenare.ComparatieModuri("inferență", pe_pas, {}, {}), "reduce-overhead") == "reduce-overhead"


def test_memoria_nu_se_masoara_pe_procesor():
    if not torch.cuda.is_available():
        assert antrenare.crestere_memorie_mib(lambda: torch.ones(10)) is None
        assert antrenare.memorie_grafuri_cuda_mib() is None


def test_optimizatorul_eager_fused_cu_rata_float():
    model = torch.nn.Linear(4, 3)
    optimizator, pas = antrenare.optimizare_eager(model, 2e-3)
    grup = optimizator.param_groups[0]
    assert grup["fused"] and not isinstance(grup["lr"], torch.Tensor) and grup["lr"] == 2e-3
    assert antrenare.varianta_adamw(optimizator) == "fused"
    for p in model.parameters():
        p.grad = torch.ones_like(p)
    inainte = [p.detach().clone() for p in model.parameters()]
    pas()
    assert all(not torch.equal(a, p) for a, p in zip(inainte, model.parameters()))
    # float64 are și el fused=True; pe un dispozitiv fără fused (de exemplu „meta”), foreach
    assert antrenare.varianta_adamw(antrenare.optimizare_eager(torch.nn.Linear(2, 2, dtype=torch.float64))[0]) == "fused"
    assert antrenare.varianta_adamw(antrenare.optimizare_eager(torch.nn.Linear(2, 2, device="meta"))[0]) == "foreach"


def test_rata_in_tensor_cu_capturable_false_cade_pe_bucla():
    """Capcana referinței eager: o rată-tensor cu capturable=False oprește foreach în tăcere."""
    model = torch.nn.Linear(4, 3)
    assert antrenare.varianta_adamw(torch.optim.AdamW(model.parameters(), lr=torch.tensor(1e-3))) == "buclă pe tensori"
    assert antrenare.varianta_adamw(torch.optim.AdamW(model.parameters(), lr=1e-3, foreach=True)) == "foreach"
    optimizator, _ = optimizare_cu_rata_tensor(model, compilat=False)
    antrenare.pune_rata(optimizator, 5e-3)
    assert isinstance(optimizator.param_groups[0]["lr"], torch.Tensor) and optimizator.param_groups[0]["lr"].item() == pytest.approx(5e-3)
    eager, _ = antrenare.optimizare_eager(model)
    antrenare.pune_rata(eager, 5e-3)
    assert eager.param_groups[0]["lr"] == 5e-3


def test_programul_ratei_merge_si_pe_rata_float():
    torch.manual_seed(0)
    model = ReteaTransformer(MIC)
    date = DateCiclu(MIC)
    optimizator, pas = antrenare.optimizare_eager(model, 1e-3)
    rate = []
    antreneaza(model, date.loturi(3), lambda x, y: pierdere(model, x, y), lambda: (rate.append(optimizator.param_groups[0]["lr"]), pas()),
               optimizator, "eager", program_rata=lambda t: 1e-3 * (t + 1))
    assert rate == pytest.approx([1e-3, 2e-3, 3e-3])


def test_gradscaler_foloseste_pasul_compilat_si_sare_pasii_cu_inf():
    """Cu un GradScaler, pasul e cel dat (aici compilat, numărat), nu `optimizator.step()` eager;
    un gradient infinit sare pasul și înjumătățește factorul de scalare."""
    from curs_compilare.inspectie import NumaratorCompilari

    torch.manual_seed(0)
    model = torch.nn.Linear(4, 3)
    numarator = NumaratorCompilari()
    optimizator, pas = optimizare_cu_rata_tensor(model, 1e-2, backend=numarator)
    scalare = torch.amp.GradScaler("cpu", init_scale=2.0**8)
    x = torch.randn(5, 4)
    loturi = [(x, None)] * 3
    rulare = antreneaza(model, loturi, lambda a, b: model(a).pow(2).mean(), pas, optimizator, "fp16", scalare=scalare)
    assert numarator.compilari == 1 and len(rulare.pierderi) == 3
    assert optimizator.state[next(model.parameters())]["step"].item() == 3
    inainte = [p.detach().clone() for p in model.parameters()]
    optimizator.zero_grad()
    scalare.scale(model(x).pow(2).mean() * float("inf")).backward()
    assert not antrenare.pas_cu_scalare(scalare, optimizator, pas)
    assert all(torch.equal(a, p) for a, p in zip(inainte, model.parameters()))
    assert scalare.get_scale() == 2.0**7


def _curba(*valori):
    return torch.tensor(valori, dtype=torch.float64)


def _plic(zgomot=0.05, rulari=4, seed=0, coborare=8.0, ferestre=10):
    """Un plic sintetic: float32 coboară liniar, rulările eager se abat cu cel mult `zgomot`."""
    generator = torch.Generator().manual_seed(seed)
    fp32 = torch.linspace(10.0, 10.0 - coborare, ferestre, dtype=torch.float64)
    eager = tuple(fp32 + zgomot * (2 * torch.rand(ferestre, generator=generator, dtype=torch.float64) - 1)
                  for _ in range(rulari))
    return antrenare.PlicZgomot(fp32, eager, fereastra=20)


def test_distantele_plicului_cuprind_si_perechile_de_rulari():
    fp32 = _curba(10, 8, 6)
    # două rulări eager se abat fiecare cu 0,1 de la float32, dar în sensuri opuse: între ele, 0,2
    plic = antrenare.PlicZgomot(fp32, (fp32 + _curba(0, 0.1, 0), fp32 - _curba(0, 0.1, 0), fp32), 1)
    assert antrenare.abatere_maxima(_curba(1, 2, 3), _curba(1, 1.7, 3.1)) == pytest.approx(0.3)
    assert plic.abateri_fp32 == pytest.approx((0.1, 0.1, 0.0))
    assert sorted(plic.distante_intre_rulari) == pytest.approx([0.1, 0.1, 0.2])
    assert plic.prag == pytest.approx(0.2)  # pragul vechi (doar față de float32) ar fi fost 0,1
    jos, sus = plic.banda()
    assert jos.tolist() == pytest.approx([10, 7.9, 6]) and sus.tolist() == pytest.approx([10, 8.1, 6])
    assert plic.coborare == pytest.approx(4.0) and not plic.nesigur


def test_verdictul_preciziei_in_zgomot_peste_si_nedecis():
    plic = _plic(zgomot=0.05)
    prag = plic.prag
    in_zgomot = plic.verdict(plic.fp32 + 1.5 * prag)
    assert in_zgomot.fel == "precizia" and in_zgomot.raport == pytest.approx(1.5)
    assert "1,5×" in in_zgomot.text and "Cel mult 3×" in in_zgomot.text and "4 rulări eager" in in_zgomot.text
    peste = plic.verdict(plic.fp32 + 4 * prag)
    assert peste.fel == "compilatorul" and "Peste 3×" in peste.text and "capitolul 07" in peste.text
    # zgomotul e cât semnalul: rulările identice nu sunt de acord, oricât de aproape ar fi curba
    zgomotos = _plic(zgomot=2.5)
    assert zgomotos.nesigur
    nedecis = zgomotos.verdict(zgomotos.fp32)
    assert nedecis.fel == "nedecis" and "nu poți spune" in nedecis.text and "caută cauza" not in nedecis.text
    fara_prag = antrenare.PlicZgomot(_curba(3, 2, 1), (_curba(3, 2, 1),) * 3, 1)
    assert fara_prag.verdict(_curba(3, 2, 1.1)).fel == "nedecis"
    assert "n-ai cu ce compara" in str(fara_prag.verdict(_curba(3, 2, 1.1)))
    assert set(antrenare.VERDICTE_PRECIZIE) == {"precizia", "compilatorul", "nedecis"}


def test_verdictul_pe_o_curba_care_nu_coboara_e_nedecis():
    plat = _curba(5, 5, 5, 5)
    plic = antrenare.PlicZgomot(plat, (plat + 0.01, plat - 0.01, plat + 0.02), 1)
    assert plic.nesigur and plic.verdict(plat + 0.5).fel == "nedecis"


@pytest.mark.parametrize("seed", range(50))
def test_verdictul_nu_se_schimba_cand_compilatul_e_doar_inca_o_rulare(seed):
    # O curbă „compilată” care e doar încă o rulare din aceeași familie de zgomot: pe 50 de
    # seminții, verdictul rămâne „precizia” (pragul vine din 4 rulări și 10 distanțe).
    plic = _plic(zgomot=0.05, seed=seed)
    generator = torch.Generator().manual_seed(1_000 + seed)
    alta = plic.fp32 + 0.05 * (2 * torch.rand(len(plic.fp32), generator=generator, dtype=torch.float64) - 1)
    assert plic.verdict(alta).fel == "precizia"


def test_tabelul_si_graficul_plicului():
    plic = _plic(zgomot=0.05)
    text = antrenare.tabel_plic(plic, plic.fp32 + 0.02, "bfloat16")
    assert "pragul de zgomot" in text and "între ele" in text and "cea mai apropiată rulare" in text
    assert "6 perechi" in text
    fig = antrenare.grafic_plic(plic, plic.fp32 + 0.02, "bfloat16")
    assert len(fig.axes) == 2
    import matplotlib.pyplot as plt

    plt.close(fig)


def test_cifrele_preciziei_se_inregistreaza_cu_verdictul(monkeypatch, tmp_path):
    from curs_compilare import cifre

    fisier = tmp_path / "cifre.jsonl"
    monkeypatch.setenv(cifre.VARIABILA_FISIER, str(fisier))
    plic = _plic(zgomot=0.05)
    antrenare.inregistreaza_precizia(plic, plic.verdict(plic.fp32 + 10 * plic.prag), "bfloat16")
    inregistrate = {c["cheie"]: c for c in map(json.loads, fisier.read_text(encoding="utf-8").splitlines())}
    assert inregistrate["06.plic_verdict"]["valoare"] == 2 and inregistrate["06.plic_verdict"]["prag_absolut"] == 0
    assert inregistrate["06.plic_prag"]["valoare"] == pytest.approx(plic.prag)
    assert inregistrate["06.plic_abatere_compilat"]["prag_absolut"] == pytest.approx(plic.prag)


def test_galetile_folosite_de_generare():
    assert antrenare.galeti_folosite(58, 12, 16, 1024) == [64, 128]
    assert antrenare.galeti_folosite(40, 12, 16, 1024) == [64]
    assert antrenare.galeti_folosite(6, 6, 4, 16) == [8, 16]


def test_avertismentul_marcajului_de_profiler_e_ascuns():
    """Prima compilare a unui `Optimizer.step` scrie, o dată pe proces, avertismentul lui Dynamo
    „Profiler record function … will be ignored”; importul modulului îl ascunde. Într-un proces
    nou, ca avertismentul să nu fi fost deja scris."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    cod = (
        "import torch, curs_compilare.capitole.cap06_modelul_intreg as a\n"
        "m = torch.nn.Linear(3, 3)\n"
        "for p in m.parameters(): p.grad = torch.ones_like(p)\n"
        "o, pas = a.optimizare_cu_rata_tensor(m, backend='eager'); pas(); print('GATA')\n"
    )
    radacina = Path(__file__).resolve().parent.parent
    mediu = dict(os.environ, PYTHONPATH=str(radacina))
    proces = subprocess.run([sys.executable, "-c", cod], capture_output=True, text=True, env=mediu, timeout=300)
    assert "GATA" in proces.stdout, proces.stderr[-2000:]
    assert "will be ignored" not in proces.stderr, proces.stderr[-2000:]


def test_moduri_pe_cpu():
    if not torch.cuda.is_available():
        assert antrenare.moduri_pentru_mediu() == ["eager", "default"]
        assert antrenare.moduri_pentru_mediu(max_autotune=True) == ["eager", "default"]
    else:
        assert antrenare.moduri_pentru_mediu(max_autotune=True) == list(antrenare.MODURI)


def test_constructorul_pasului_de_antrenare():
    torch.manual_seed(0)
    model = ReteaTransformer(MIC)
    date = DateCiclu(MIC)
    x, y = date.lot()
    optimizator, pas_opt = optimizare_cu_rata_tensor(model, 1e-3, compilat=False)
    calcul = lambda a, b: pierdere(model, a, b)  # noqa: E731
    compilat = torch.compile(antrenare.invelis_nou(calcul, "constructor"), backend="eager")
    construieste = antrenare.constructor_pas_antrenare(calcul, optimizator, pas_opt, x, y, compilate={"default": compilat})
    inainte = [p.detach().clone() for p in model.parameters()]
    construieste("eager")()
    construieste("default")()
    assert all(not torch.equal(a, p) for a, p in zip(inainte, model.parameters()))
    assert optimizator.state[next(model.parameters())]["step"].item() == 2
