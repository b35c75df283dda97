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


def test_evaluarea_nu_cere_gradienti_si_da_aceeasi_pierdere():
    torch.manual_seed(0)
    model = modele.ReteaTransformer(MIC)
    intrari, tinte = modele.lot_aleator(MIC)
    valoare = modele.pierdere_evaluare(model, intrari, tinte)
    assert not valoare.requires_grad
    torch.testing.assert_close(valoare, modele.pierdere(model, intrari, tinte).detach())


def test_precizia_si_optimizatorul_pe_procesor():
    if torch.cuda.is_available():
        assert modele.precizie_pentru_mediu() in (torch.bfloat16, torch.float16)
    else:
        assert modele.precizie_pentru_mediu() is None
    f = lambda x: x * 2  # noqa: E731
    assert modele.cu_precizie(f, None) is f
    cu_bf16 = modele.cu_precizie(lambda a, b: a @ b, torch.bfloat16, "cpu")
    assert cu_bf16(torch.randn(4, 4), torch.randn(4, 4)).dtype == torch.bfloat16
    optimizator = modele.optimizator_pentru(modele.ReteaTransformer(MIC))
    assert isinstance(optimizator, torch.optim.AdamW)


def test_configuratia_pe_gpu_e_limitata_de_gpu(monkeypatch):
    """Pe un GPU: vocabularul lui GPT-2 și destule jetoane pe lot ca lucrul să acopere lansările."""
    monkeypatch.setenv("CURS_PROFIL", "complet")
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)

    class Proprietati:  # ce citește `mediu.detecteaza_mediul` (de acolo vine memoria)
        name, major, minor, multi_processor_count = "NVIDIA H200", 9, 0, 132
        total_memory = 141 * 2**30

    monkeypatch.setattr(torch.cuda, "get_device_properties", lambda i: Proprietati())
    c = modele.configuratie_pentru_mediu()
    assert c.vocabular == 50304 and c.vocabular % 64 == 0
    assert c.marime_lot * c.lungime >= 16384
    Proprietati.total_memory = 15 * 2**30  # un T4
    assert modele.configuratie_pentru_mediu().marime_lot == 4
