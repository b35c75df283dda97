"""ReteaTransformer și uneltele lui: forme, lot, pas de antrenare, compilare fidelă."""

import math

import pytest
import torch

from curs_compilare import modele

MIC = modele.ConfiguratieTransformer(vocabular=64, dim_model=16, nr_capete=2, nr_straturi=1, lungime=8, marime_lot=3)


def test_forma_iesirii_si_parametri():
    torch.manual_seed(0)
    model = modele.ReteaTransformer(MIC)
    intrari, tinte = modele.lot_aleator(MIC)
    assert intrari.shape == tinte.shape == (3, 8)
    assert model(intrari).shape == (3, 8, 64)
    assert model.numar_parametri() == sum(p.numel() for p in model.parameters())
    assert model.flops_pas_antrenare(3, 8) > 6 * model.numar_parametri() * 24 - 1


def test_tintele_sunt_intrarile_deplasate():
    intrari, tinte = modele.lot_aleator(MIC, generator_seed=3)
    assert torch.equal(intrari[:, 1:], tinte[:, :-1])
    intrari2, _ = modele.lot_aleator(MIC, generator_seed=3)
    assert torch.equal(intrari, intrari2)


def test_configuratie_invalida_si_marimi_directe():
    with pytest.raises(ValueError):
        modele.ConfiguratieTransformer(dim_model=10, nr_capete=3)
    model = modele.ReteaTransformer(vocabular=32, dim_model=8, nr_capete=2, nr_straturi=1, lungime=4)
    assert model.configuratie.vocabular == 32
    with pytest.raises(TypeError):
        modele.ReteaTransformer(MIC, vocabular=3)


def test_configuratie_rapida(monkeypatch):
    monkeypatch.setenv("CURS_PROFIL", "rapid")
    assert modele.configuratie_pentru_mediu().dim_model == 32


def test_pierderea_initiala_si_antrenarea_o_scad():
    torch.manual_seed(0)
    model = modele.ReteaTransformer(MIC)
    intrari, tinte = modele.lot_aleator(MIC)
    optimizator = torch.optim.AdamW(model.parameters(), lr=1e-2)
    pierderi = [
        modele.pas_antrenare(lambda a, b: modele.pierdere(model, a, b), optimizator, intrari, tinte).item()
        for _ in range(15)
    ]
    assert abs(pierderi[0] - modele.pierdere_initiala_asteptata(MIC)) < 0.2
    assert pierderi[-1] < pierderi[0] - 0.5
    assert math.isclose(modele.pierdere_initiala_asteptata(MIC), math.log(64))


def test_compilarea_pastreaza_rezultatul():
    torch.manual_seed(0)
    model = modele.ReteaTransformer(MIC)
    intrari, _ = modele.lot_aleator(MIC)
    compilat = torch.compile(model, backend="aot_eager")
    torch.testing.assert_close(compilat(intrari), model(intrari))
