"""Teste pentru `curs_compilare.antrenare` (capitolul 06). Pe CPU, cu modele minuscule; compilările
folosesc backend-ul „eager” (doar Dynamo) unde nu contează codul generat."""

import math

import pytest
import torch
import torch.nn.functional as F

from curs_compilare import antrenare
from curs_compilare.antrenare import (
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
    model = ReteaTransformer(MIC).eval()
    x = torch.randint(MIC.vocabular, (2, 8))
    f = torch.no_grad()(model)
    falsa = torch.compile(antrenare.invelis_nou(f, "refolosita"), backend="eager")
    falsa(x)
    comparatie = antrenare.compara_moduri(lambda mod: antrenare.functie_pentru_mod(f, mod), x, moduri=["eager", "default"], existente={"default": (falsa, 1.0)},
                                          runde=2, timp_minim_s=0.02)
    assert comparatie.moduri == ["eager", "default"]
    assert comparatie.prima_s["default"] == 1.0
    assert comparatie.memorie_mib["eager"] is None  # pe CPU nu se măsoară
    servire = comparatie.masuratori_servire()
    assert set(servire["default"]) == {"prima_s", "pe_apel_ms", "memorie_mib"}
    n = comparatie.amortizare("default")
    if n is not None:
        assert comparatie.cost_total_s("default", n) <= comparatie.cost_total_s("eager", n) * (1 + 1e-9)


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
